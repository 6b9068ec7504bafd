//! `gk statusline`: one short line for Claude Code's `statusLine` command,
//! showing this session's task state. Claude Code runs it with a JSON
//! object on stdin (`session_id`, `cwd`, `model`, …) and shows the first
//! line it prints. Same rules as the hooks: no process, no write, nothing
//! on stderr, exit 0, one record read (two when the session has none).
//!
//! ```text
//! gk DIRTY 'Writing bfsi-case.ttl' [BFSI] 12m ago
//! gk CLEAN
//! gk UNKNOWN (no task record)
//! ```

use std::time::SystemTime;

use super::config::StateScope;
use super::voice;
use crate::console::Console;
use crate::env::Env;
use crate::paths::ClaudePaths;

/// Print the line; always exit code 0 (a panic is caught, as in the hooks).
pub fn run(env: &Env, c: &mut Console<'_>) -> u8 {
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let line = answer(env, c);
        let _ = c.out.write_all(line.as_bytes());
        let _ = c.out.flush();
    }));
    0
}

fn answer(env: &Env, c: &mut Console<'_>) -> String {
    let home = crate::paths::home_dir(env);
    let paths = ClaudePaths::resolve(env.var_os("CLAUDE_CONFIG_DIR"), home.clone());
    let (config, note) = super::hook_config(paths.as_ref());
    let event = match config.state.scope {
        StateScope::Global => {
            super::read_stdin(env, c, 0);
            None
        }
        StateScope::Session => {
            let input = super::read_stdin(env, c, super::input::MAX_EVENT_BYTES);
            super::event_of(&input).map(|(e, _)| e)
        }
    };
    let located = super::state_for(
        &config,
        paths.as_ref(),
        home.as_deref(),
        event.as_ref(),
        env,
    );
    let now = SystemTime::now();
    let speaker = super::follow::Speaker::of(&located, now, config.stale_hours);
    let next = super::follow::next_of(speaker.file, &config);
    let mut line = voice::status_line(&speaker.line(
        &located,
        now,
        config.stale_hours,
        next.as_deref(),
        note.as_deref(),
    ));
    line.push('\n');
    line
}
