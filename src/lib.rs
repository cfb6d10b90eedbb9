//! The `prvscope` command line: one module per subcommand ([`cli`]); the binary parses the
//! arguments and runs one of them, or opens the viewer.
//!
//! The work is done by the workspace's crates, in layers (`ARCHITECTURE.md`):
//! `prvscope-format` and `prvscope-store` at the bottom, `prvscope-import` and
//! `prvscope-analysis` above them, `prvscope-viewer` on top.

pub mod cli;
