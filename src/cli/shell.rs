//! What people expect of a tool they install: shell completions and a man page, both made
//! from the clap definition the command itself parses with, so they never fall behind it.
//! The man page is one page, as ripgrep's is: every command with its options, then the
//! inspector's keys from the key table the help screen is built from, the environment, the
//! files, the exit status and examples. It points at no page it does not write.

use std::io::{self, Write};

use clap_mangen::Man;
use clap_mangen::roff::{Roff, bold, roman};

use crate::tui::keymap;

/// The completion script for `shell`.
pub fn completions(shell: clap_complete::Shell, mut cmd: clap::Command, out: &mut dyn Write) -> io::Result<()> {
    let name = cmd.get_name().to_owned();
    // Made in memory first: the generator panics on a failed write (a closed pipe).
    let mut script = Vec::new();
    clap_complete::generate(shell, &mut cmd, name, &mut script);
    out.write_all(&script)?;
    out.flush()
}

/// Every variable bracewalk reads, and what for (a test holds it to the code).
const ENVIRONMENT: &[(&str, &str)] = &[
    (
        "BRACEWALK_STATE_DIR",
        "Where bracewalk keeps what outlives a run: the inspector's triage marks and the logs of readers of one's own. By default $XDG_STATE_HOME/bracewalk, else $HOME/.local/state/bracewalk (%LOCALAPPDATA%\\bracewalk on Windows).",
    ),
    ("XDG_STATE_HOME", "The state directory's parent, when BRACEWALK_STATE_DIR is not set."),
    ("HOME", "The state directory's last resort: $HOME/.local/state/bracewalk."),
    ("LOCALAPPDATA", "On Windows, the state directory's parent."),
    ("NO_COLOR", "When set and not empty, nothing is coloured. Output that is not a terminal never is."),
    ("EDITOR", "What o opens the reply in, at its line."),
    ("PAGER", "What o opens the reply in when EDITOR is not set; less by default."),
    ("BRACEWALK_PYTHON", "The Python that py: readers run with (a virtualenv's bin/python); python3 by default."),
    ("PATH", "Where node, python3 and tsx are found for js: and py: readers."),
    ("TMPDIR", "Where readers' logs go (bracewalk-readers/) when the state directory lies inside a path being read."),
    (
        "BRACEWALK_DEBUG_PANIC, BRACEWALK_DEBUG_HANG, BRACEWALK_TIMINGS",
        "Hooks for tests and benchmarks, not settings: a key press panics (on a thread of its own with =thread) or stalls the inspector for a minute; the inspector's latencies are appended to the file named.",
    ),
];

const FILES: &[(&str, &str)] = &[
    (
        "$BRACEWALK_STATE_DIR/marks.jsonl",
        "The replies marked for triage in the inspector (m), one a line; bracewalk marks prints them.",
    ),
    (
        "$BRACEWALK_STATE_DIR/readers/NAME.log",
        "The standard error of the reader NAME given with --reader, started afresh each run (NAME.pane.log: its second run, for the inspector's readers pane).",
    ),
    ("$TMPDIR/bracewalk-readers/", "The readers' logs when the state directory lies inside a path being read."),
];

const EXIT_STATUS: &[(&str, &str)] = &[
    ("0", "list, scan: everything loaded. extract: a value was read. The inspector: quit (q, or Ctrl-C typed in it)."),
    (
        "1",
        "list, scan: some inputs had diagnostics, the rest was read (a reader of one's own that failed is one). extract: nothing reads.",
    ),
    (
        "2",
        "An error: a path given that does not exist or cannot be read (named on stderr with why, before anything is read), a reply that cannot be read, a bad option, a reader that cannot start; list and scan: nothing could be read.",
    ),
    ("3", "scan --accepted: a difference not accepted (new, or read another way), whatever else happened."),
    (
        "128 + N",
        "The inspector, ended by signal N: 130 for SIGINT, 143 for SIGTERM, 129 for SIGHUP or a terminal that went away. A second SIGINT or SIGTERM ends it at once.",
    ),
];

/// Command lines, each run from a clone of the repository (where sample-logs/ and examples/
/// are) by the docs' test.
pub const EXAMPLES: &[(&str, &str)] = &[
    (
        "How the seed read the 62 kB correction, candidate by candidate:",
        "bracewalk explain sample-logs/round-4/3f1c9a0e7b2d4c58/log.jsonl:135",
    ),
    ("How every reply was decided, and the what-ifs:", "bracewalk scan sample-logs"),
    ("The value the extractor returns:", "echo 'Draft: {\"a\":1}  Final: {\"a\":2}' | bracewalk extract -"),
    ("Both rounds' page 17:", "bracewalk list sample-logs --filter 'doc=3f1c page=17'"),
    (
        "An extractor of one's own beside the seed:",
        "bracewalk scan --reader mine=js:examples/extractors/extract.mjs sample-logs",
    ),
    (
        "This page, where man finds it:",
        "mkdir -p ~/.local/share/man/man1 && bracewalk man > ~/.local/share/man/man1/bracewalk.1",
    ),
    (
        "Completions for bash:",
        "mkdir -p ~/.local/share/bash-completion/completions && bracewalk completions bash > ~/.local/share/bash-completion/completions/bracewalk",
    ),
];

/// The man page, in roff.
pub fn man(mut cmd: clap::Command, out: &mut dyn Write) -> io::Result<()> {
    cmd.build();
    let page = Man::new(cmd.clone());
    let mut w = Vec::new();
    page.render_title(&mut w)?;
    page.render_name_section(&mut w)?;
    page.render_synopsis_section(&mut w)?;
    page.render_description_section(&mut w)?;
    page.render_options_section(&mut w)?;
    commands(&cmd, &mut w)?;
    keys().to_writer(&mut w)?;
    let mut roff = Roff::default();
    table(&mut roff, "ENVIRONMENT", ENVIRONMENT);
    table(&mut roff, "FILES", FILES);
    table(&mut roff, "EXIT STATUS", EXIT_STATUS);
    roff.control("SH", ["EXAMPLES"]);
    roff.text([roman("From a clone of the repository, where sample-logs/ and examples/ are:")]);
    for (what, line) in EXAMPLES {
        roff.control("PP", []);
        roff.text([roman(*what)]);
        roff.control("EX", []);
        roff.text([roman(*line)]);
        roff.control("EE", []);
    }
    roff.control("SH", ["SEE ALSO"]);
    roff.text([roman("The guide, docs/GUIDE.md, says what each command does and what bracewalk reads.")]);
    roff.to_writer(&mut w)?;
    page.render_version_section(&mut w)?;
    out.write_all(&w)?;
    out.flush()
}

/// Each command with its synopsis, description and options, under a heading of its own.
fn commands(cmd: &clap::Command, w: &mut Vec<u8>) -> io::Result<()> {
    writeln!(w, ".SH COMMANDS")?;
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set() && s.get_name() != "help") {
        let man = Man::new(sub.clone());
        let mut part = Vec::new();
        man.render_synopsis_section(&mut part)?;
        man.render_description_section(&mut part)?;
        if sub.get_arguments().any(|a| !a.is_hide_set()) {
            man.render_options_section(&mut part)?;
        }
        // The part's own section headings become the command's heading and paragraphs.
        for line in String::from_utf8_lossy(&part).lines() {
            if line.starts_with(".SH SYNOPSIS") {
                writeln!(w, ".SS \"{} {}\"", cmd.get_name(), sub.get_name())?;
            } else if line.starts_with(".SH ") {
                writeln!(w, ".PP")?;
            } else {
                writeln!(w, "{line}")?;
            }
        }
    }
    Ok(())
}

/// The inspector's keys, from the key table its help screen is built from.
fn keys() -> Roff {
    let mut roff = Roff::default();
    roff.control("SH", ["KEYS"]);
    roff.text([roman("The inspector's keys, as its help screen (?) gives them.")]);
    for (title, rows) in keymap::TABLES {
        roff.control("SS", [title]);
        for binding in rows {
            roff.control("TP", []);
            roff.text([bold(keymap::keys_text(binding))]);
            roff.text([roman(binding.what)]);
        }
    }
    roff.control("SS", ["Mouse"]);
    for (what, does) in keymap::MOUSE {
        roff.control("TP", []);
        roff.text([bold(*what)]);
        roff.text([roman(*does)]);
    }
    roff
}

fn table(roff: &mut Roff, title: &str, rows: &[(&str, &str)]) {
    roff.control("SH", [title]);
    for (name, what) in rows {
        roff.control("TP", []);
        roff.text([bold(*name)]);
        roff.text([roman(*what)]);
    }
}
