//! gk: Claude Code hooks (prompt, stop, the session check, the status line)
//! and the tool that installs, diagnoses and removes them. Everything is in
//! the library; see `commands::main`.

fn main() -> std::process::ExitCode {
    gk::main()
}
