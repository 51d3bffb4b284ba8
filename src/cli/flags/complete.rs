//! Shell completion scripts, generated at run time from the clap definition
//! the parser uses (`herder-audit completions SHELL`).

use clap::Command;
use clap_complete::Shell;

/// The completion script for `shell`.
pub fn completions(shell: Shell, mut cmd: Command) -> Vec<u8> {
    let name = cmd.get_name().to_string();
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut cmd, name, &mut buf);
    buf
}
