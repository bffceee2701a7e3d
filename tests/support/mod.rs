//! What the tests share: running the binary, copying a tree of logs, the tools a test needs
//! beside the binary, a tmux server of the test's own, and the fixtures of each area. Each
//! group of tests (`tests/<area>/main.rs`) includes this module as `support`; what a group
//! does not use is left out of its binary.
#![allow(dead_code)]

pub mod binary;
pub mod campaign;
pub mod corpus;
pub mod follower;
pub mod fuzz_checks;
pub mod groups;
pub mod in_shell;
pub mod loaded;
pub mod replies;
pub mod soak;
pub mod tmux;
pub mod tools;
pub mod tree;
pub mod tui_fixture;
