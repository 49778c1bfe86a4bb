//! keel-app's integration tests: the assembled default policy against a real filesystem and
//! a real `/bin/sh`. (One test binary for the crate; each file beside this one is a module.)

mod shell_fuzz;
