//! What people expect of a tool they install: shell completions and a man page, both made
//! from the clap definition the command itself parses with, so they never fall behind it.

use std::io::{self, Write};

/// The completion script for `shell`.
pub fn completions(shell: clap_complete::Shell, mut cmd: clap::Command, out: &mut dyn Write) -> io::Result<()> {
    let name = cmd.get_name().to_owned();
    // Made in memory first: the generator panics on a failed write (a closed pipe).
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut cmd, name, &mut script);
    out.write_all(&script)?;
    out.flush()
}

/// The man page, in roff.
pub fn man(cmd: clap::Command, out: &mut dyn Write) -> io::Result<()> {
    clap_mangen::Man::new(cmd).render(out)?;
    out.flush()
}
