//! Every reader's process group, from its start until its leader is reaped, in one place, so
//! that every way bracewalk ends ends them too ([`stop_all`]): a command's end and an error
//! it returns (`main` stops them last), a panic on any thread (a hook `main` installs,
//! [`stop_on_panic`]), a signal ([`end_on_signals`] for the commands; the inspector stops them on
//! the signal that ends it at once), and its terminal going away.
//!
//! Each reader's owner ends its group as well, when the reader is done, fails or is dropped;
//! and should bracewalk be killed outright, a watcher started inside each group ends it
//! within a second ([`watch`]). The group is the unit: `sh -c` may have started the reader as
//! a child of its own, and an extractor may start children of its own.

use std::io;
use std::sync::{Mutex, MutexGuard, Once, PoisonError, TryLockError};
use std::time::{Duration, Instant};

/// The groups started and not yet reaped, by their id (their leader's process id).
static LIVE: Mutex<Vec<u32>> = Mutex::new(Vec::new());

/// Installs the panic hook once.
static HOOK: Once = Once::new();

/// A shell line, run first in each reader's group, that ends the group once bracewalk
/// (process `bracewalk`) is gone: a subshell that holds none of the reader's pipes asks every
/// second whether bracewalk lives, and when it does not, kills its own group. It is killed
/// with the group when the reader ends. Bracewalk's id is given, not asked of the shell
/// (`$PPID`): a bracewalk killed before its reader's shell had started would leave that shell
/// the child of init, and its watcher watching init for ever.
pub(super) fn watch(bracewalk: u32) -> String {
    format!(
        "b={bracewalk}; ( while kill -0 \"$b\" 2>/dev/null; do sleep 1; done; kill -9 0 ) </dev/null >/dev/null 2>&1 3>&- &"
    )
}

fn live() -> MutexGuard<'static, Vec<u32>> {
    LIVE.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Runs `spawn`, which starts a process group and gives its id, with the groups held: no
/// [`stop_all`] can come between a group's start and its being known.
pub(super) fn started<T>(spawn: impl FnOnce() -> io::Result<(T, u32)>) -> io::Result<T> {
    let mut live = live();
    let (started, group) = spawn()?;
    live.push(group);
    Ok(started)
}

/// The group `group` is stopped and its leader about to be reaped: no longer one to stop
/// (its id may be another process's once the leader is reaped).
pub(super) fn reaped(group: u32) {
    live().retain(|&g| g != group);
}

/// Stops every reader's process group there is, at once.
pub fn stop_all() {
    stop(&live());
}

fn stop(groups: &[u32]) {
    for &group in groups {
        kill_group(group);
    }
}

/// Stops process group `group` whole (it may be gone already: nothing to stop then).
#[cfg(unix)]
pub(super) fn kill_group(group: u32) {
    use nix::sys::signal::{Signal, killpg};
    use nix::unistd::Pid;
    if let Ok(pid) = i32::try_from(group) {
        let _ = killpg(Pid::from_raw(pid), Signal::SIGKILL);
    }
}

#[cfg(not(unix))]
pub(super) fn kill_group(_: u32) {}

/// From now on a panic on any thread stops every reader, then does what the hook before did.
/// For the program, not the library: in a program that embeds the library (a test harness
/// among them), a panic elsewhere must not end readers it still uses. Installed before the
/// inspector's hook, which gives the terminal back, calls this one and exits.
pub fn stop_on_panic() {
    HOOK.call_once(chain_panic_hook);
}

fn chain_panic_hook() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        // The panic may have come while the groups were held; then wait a moment for them,
        // and stop what is known at worst.
        let until = Instant::now() + Duration::from_millis(200);
        loop {
            match LIVE.try_lock() {
                Ok(groups) => break stop(&groups),
                Err(TryLockError::Poisoned(p)) => break stop(&p.into_inner()),
                Err(TryLockError::WouldBlock) if Instant::now() < until => {
                    std::thread::sleep(Duration::from_millis(5));
                }
                Err(TryLockError::WouldBlock) => break,
            }
        }
        previous(info);
    }));
}

/// For a command that ends on SIGINT, SIGTERM or SIGHUP (every one but the inspector, which
/// stops on its own): on the first, every reader is stopped, and bracewalk ends by the
/// signal, as it would without this.
#[cfg(unix)]
pub fn end_on_signals() -> io::Result<()> {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let mut signals = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP])?;
    std::thread::Builder::new().name("bracewalk-signals".into()).spawn(move || {
        if let Some(signal) = signals.forever().next() {
            stop_all();
            let _ = signal_hook::low_level::emulate_default_handler(signal);
            std::process::exit(128 + signal);
        }
    })?;
    Ok(())
}

#[cfg(not(unix))]
pub fn end_on_signals() -> io::Result<()> {
    Ok(())
}

#[cfg(all(test, unix))]
mod tests {
    use std::os::unix::process::CommandExt;
    use std::time::{Duration, Instant};

    use super::watch;

    /// A reader started after bracewalk was already killed: its watcher ends its group at
    /// once, where one that asked the shell for its parent would find init, and wait for ever.
    #[test]
    fn a_watcher_whose_bracewalk_is_gone_ends_its_group_at_once() {
        let mut gone = std::process::Command::new("true").spawn().unwrap();
        let dead = gone.id();
        gone.wait().unwrap();
        let mut reader = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("{} exec sleep 60", watch(dead)))
            .process_group(0)
            .spawn()
            .unwrap();
        let start = Instant::now();
        let status = loop {
            if let Some(status) = reader.try_wait().unwrap() {
                break status;
            }
            if start.elapsed() > Duration::from_secs(20) {
                let _ = reader.kill();
                panic!("the watcher left its group running");
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(status.signal(), Some(9), "{status:?}");
    }
}
