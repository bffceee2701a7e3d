//! What the command line prints: the oracle-format record, the explained trace, the corpus
//! scan, the listing, styling. The binary's `main.rs` parses arguments and calls into here.

pub mod accepted;
pub mod explain;
pub mod extract;
pub mod jsonl;
pub mod list;
pub mod merge;
pub mod readers;
pub mod record;
pub mod rounds;
pub mod scan;
pub mod shell;
pub mod style;
pub mod task;

use std::io::{self, Write};
use std::process::ExitCode;

/// Runs a command that prints to standard output, buffered, and gives its exit status; when
/// the reader of the output goes away (`| head`) the command stops quietly with 0, as grep
/// does.
pub fn to_stdout(command: impl FnOnce(&mut dyn Write) -> anyhow::Result<u8>) -> anyhow::Result<ExitCode> {
    // A scan whose parent is gone writes nothing more (see `task::die_with_parent`).
    let mut out = io::BufWriter::new(task::UnlessOrphaned(io::stdout().lock()));
    let done = command(&mut out).and_then(|code| out.flush().map(|()| code).map_err(anyhow::Error::from));
    match done {
        Ok(code) => Ok(ExitCode::from(code)),
        Err(e) if broken_pipe(&e) => Ok(ExitCode::SUCCESS),
        Err(e) => Err(e),
    }
}

fn broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| c.downcast_ref::<io::Error>().is_some_and(|io| io.kind() == io::ErrorKind::BrokenPipe))
}
