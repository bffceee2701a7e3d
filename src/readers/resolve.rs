//! Resolving a reader of one's own, in one step: what its spec names is found (a command is
//! what it says; an extractor function's file, the export or attribute it names, the program
//! that runs it), and an extractor function's runner is started and waited for until it says
//! it has loaded the function, so that what it called is known and a spec that cannot run is
//! one error before any reply is read. That runner then waits, in the
//! [supervisor](super::supervisor), for the first run of the reader.

use super::adapter;
use super::error::ReaderError;
use super::own::{Launch, Outside, Resolved, RunOptions, Spec};
use super::supervisor;

/// Resolves reader `name`'s `spec`, to be run as `run` says.
pub fn resolve(name: &str, spec: Spec, run: RunOptions) -> Result<Outside, ReaderError> {
    let resolved = match &spec.launch {
        Launch::Shell(_) => Resolved::Shell,
        Launch::Function { language, target } => Resolved::Function(adapter::locate(name, *language, target)?),
    };
    supervisor::start_ahead(name, Outside { spec, resolved, run })
}
