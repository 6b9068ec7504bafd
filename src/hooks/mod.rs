//! The hot path: `gk hook prompt` (UserPromptSubmit) and `gk hook stop`
//! (Stop), ports of the Python v5 gatekeeper and state monitor,
//! `gk hook session` (SessionStart, [`session`]: the setup check, which
//! reads the settings files through `crate::registry`) and
//! `gk statusline`. Each prompt, Stop or status line run reads stdin and
//! at most three small files (`<claude dir>/hooks/gk.json`; this session's
//! record in the state folder; the shared `<claude dir>/hooks/task_state.json`
//! when the session has no record or the scope is global — see
//! [`state::locate`]), prints at most one line and exits 0; the session
//! check reads gk.json and the settings files. It never lists the state folder, so the
//! number of records in it costs nothing. Nothing in this folder may spawn
//! a process, open a connection or write a file (see
//! docs/maintainers/hooks-internals.md, "How the prime directive is kept";
//! a test scans this folder's source).
//!
//! For `gk doctor`, two read-only, side-effect-free entry points report
//! things exactly as the hooks would:
//!
//! - [`load_config`]`(path) -> Result<Config, ConfigError>`: the config the
//!   hooks would use (built-in defaults when the file is absent); the error
//!   displays as `path:line:col: reason`.
//! - [`read_state`]`(path) -> StateFile`, then
//!   [`StateFile::verdict`]`(now, stale_hours) -> StateVerdict`:
//!   missing / unreadable(reason) / no status / bad status(value) /
//!   in progress(stale, age hours) / clean(age hours). `read_state` is the
//!   only I/O (one read and its mtime); `verdict` is pure.

mod config;
mod input;
pub mod jsonout;
mod keywords;
mod prompt;
mod pytext;
pub mod session;
mod state;
mod statusline;
mod stop;

use std::io::{IsTerminal, Write};
use std::time::SystemTime;

pub use config::{
    load_config, load_for_hooks, Config, ConfigError, LoadedConfig, StateScope, MAX_CONFIG_BYTES,
};
pub use input::Input;
pub use keywords::KeywordSet;
pub use state::{
    locate, read_record, read_state, Located, StateFile, StateRead, StateVerdict, DETAIL_CHARS,
    MAX_SHOWN_STATE_BYTES, MAX_STATE_BYTES, PROJECT_CHARS, STATUS_CHARS, TASK_CHARS,
};
pub use statusline::run as run_statusline;
pub use stop::age_text;

use crate::paths::ClaudePaths;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Hook {
    Prompt,
    Stop,
    /// SessionStart: the setup check (`session`).
    Session,
}

/// Run one hook; returns the process exit code, which is always 0. A bug
/// that panics is caught here (main installs a silent panic hook first), so
/// it can neither print to stderr nor change the exit code.
pub fn run(hook: Hook) -> u8 {
    let _ = std::panic::catch_unwind(|| {
        if let Some(out) = answer(hook) {
            let mut stdout = std::io::stdout().lock();
            let _ = stdout.write_all(out.as_bytes());
            let _ = stdout.flush();
        }
    });
    0
}

/// stdin, unless it is a terminal, keeping at most its first `keep` bytes.
/// Always drain a piped stdin so Claude Code's write never meets a closed
/// pipe, but keep only a bounded prefix: no event, however long, makes an
/// allocation that a memory limit could refuse. A terminal is not Claude
/// Code but a person trying the hook by hand: waiting for them to type an
/// event and Ctrl-D would look like a hang, so a terminal is not read (no
/// event: the prompt hook prints nothing, the Stop hook, which needs no
/// event, shows the shared state).
fn read_stdin(keep: usize) -> input::Input {
    let stdin = std::io::stdin();
    if stdin.is_terminal() {
        input::Input::default()
    } else {
        input::read_input(stdin.lock(), keep)
    }
}

/// The most of the note on an ignored gk.json shown.
const NOTE_CHARS: usize = 600;

/// The config the hooks run on, and the one-line note when gk.json was ignored.
fn hook_config(paths: Option<&ClaudePaths>) -> (Config, Option<String>) {
    let loaded = match paths {
        Some(p) => config::load_for_hooks(&p.config_file()),
        None => config::LoadedConfig {
            config: Config::default(),
            error: None,
        },
    };
    // One line, bounded: the error may quote gk.json's own text (a field
    // name), which must not start a line of its own.
    let note = loaded.error.as_ref().map(|e| {
        let note = format!("gk config ignored, using the built-in defaults: {e}");
        crate::text::one_line(&note, NOTE_CHARS).into_owned()
    });
    (loaded.config, note)
}

/// The event's `session_id` when it is a non-empty string.
fn session_id_of(event: &serde_json::Value) -> Option<&str> {
    event
        .get("session_id")
        .and_then(serde_json::Value::as_str)
        .filter(|s| !s.is_empty())
}

/// The state for this event under the configured scope (see [`state::locate`]).
fn state_for(
    config: &Config,
    paths: Option<&ClaudePaths>,
    home: Option<&std::path::Path>,
    session_id: Option<&str>,
) -> Located {
    let shared = paths.map(ClaudePaths::state_file);
    let dir = match config.state.scope {
        StateScope::Global => None,
        StateScope::Session => crate::paths::state_dir_for(crate::platform::Os::current(), home),
    };
    locate(
        config.state.scope,
        session_id,
        dir.as_deref(),
        shared.as_deref(),
    )
}

/// The hook's stdout, or `None` for no output.
fn answer(hook: Hook) -> Option<String> {
    let home = crate::paths::home_dir();
    let paths = ClaudePaths::resolve(std::env::var_os("CLAUDE_CONFIG_DIR"), home.clone());
    if hook == Hook::Session {
        return session_answer(home, paths.as_ref());
    }
    let (config, note) = hook_config(paths.as_ref());
    let config = &config;
    // The v5 Stop hook ignores its event; per session it needs the id.
    let keep = match (hook, config.state.scope) {
        (Hook::Stop, StateScope::Global) => 0,
        _ => input::MAX_EVENT_BYTES,
    };
    let input = read_stdin(keep);
    let dir = match config.state.scope {
        StateScope::Global => None,
        StateScope::Session => {
            crate::paths::state_dir_for(crate::platform::Os::current(), home.as_deref())
        }
    };
    let shared = paths.as_ref().map(ClaudePaths::state_file);
    respond(
        hook,
        &input,
        config,
        note,
        |session_id| {
            locate(
                config.state.scope,
                session_id,
                dir.as_deref(),
                shared.as_deref(),
            )
        },
        SystemTime::now(),
    )
}

/// `gk hook session`: switched off in gk.json, or with no home folder and
/// no `CLAUDE_CONFIG_DIR` (no user settings to read), it drains stdin and
/// prints nothing; otherwise see [`session::answer`].
fn session_answer(home: Option<std::path::PathBuf>, paths: Option<&ClaudePaths>) -> Option<String> {
    let loaded = paths.map(|p| config::load_for_hooks(&p.config_file()));
    let on = loaded.as_ref().is_some_and(|l| l.config.session.enabled);
    let input = read_stdin(if on { session::MAX_EVENT_BYTES } else { 0 });
    let (paths, loaded) = (paths?, loaded?);
    if !on {
        return None;
    }
    let machine = session::Machine::from_env(home, paths);
    session::answer(&input, &machine, &loaded.config, loaded.error.as_ref())
}

/// The pure part of a hook run: what `hook` prints for what it read of
/// stdin (`input`), with `config` (and the line saying why gk.json was
/// ignored, if it was), the task state for the event's session id (`state`
/// is called at most once, only when the hook needs it) and the time
/// `now`. `None`: print nothing. What the fuzz target
/// `fuzz/fuzz_targets/hook_input.rs` drives.
pub fn respond(
    hook: Hook,
    input: &input::Input,
    config: &Config,
    mut note: Option<String>,
    state: impl FnOnce(Option<&str>) -> Located,
    now: SystemTime,
) -> Option<String> {
    match hook {
        // The session check reads the settings files: `session::answer`.
        Hook::Session => None,
        Hook::Prompt => {
            if !config.prompt.enabled {
                return None;
            }
            let (event, cut) = event_of(input)?;
            if let Some(cut) = cut {
                note = Some(match note {
                    Some(n) => format!("{n}\n ! {cut}"),
                    None => cut,
                });
            }
            let located = state(session_id_of(&event));
            let (msg, ctx) = prompt::respond(
                prompt::prompt_of(&event),
                config,
                &located.file,
                now,
                note.as_deref(),
                located.record.as_deref(),
            );
            Some(jsonout::prompt_output(&msg, &ctx))
        }
        Hook::Stop => {
            if !config.stop.enabled {
                return None;
            }
            // v5 ignores the Stop event; per session, its id picks the record.
            let event = match config.state.scope {
                StateScope::Global => None,
                StateScope::Session => event_of(input).map(|(event, _)| event),
            };
            let located = state(event.as_ref().and_then(session_id_of));
            let msg = stop::message(
                &located.file,
                now,
                config.stale_hours,
                note.as_deref(),
                located.from_shared,
            );
            Some(jsonout::stop_output(&msg))
        }
    }
}

/// The event the prompt hook answers, and a note when stdin held more than
/// the hook keeps ([`input::MAX_EVENT_BYTES`]). `None`: not JSON at all (the
/// reference prints nothing, and so does gk).
///
/// A longer event is read from its first part, member by member: a prompt
/// found whole there is answered exactly as ever (only fields after it
/// were cut: no note); a prompt cut off is judged on its first part (a
/// keyword further on is not seen; `[check]` at its start still is) and
/// the user is told; no prompt in the first part gives the answer for an
/// empty prompt, and says so. The state lines never depend on the prompt,
/// so the DIRTY warning is never lost to a long paste.
fn event_of(input: &input::Input) -> Option<(serde_json::Value, Option<String>)> {
    use serde_json::Value;
    let text = String::from_utf8_lossy(&input.bytes);
    if input.complete {
        return input::parse_lenient(&text).ok().map(|v| (v, None));
    }
    let size = crate::bounded::size_text(input::MAX_EVENT_BYTES as u64);
    let (members, cut) = input::members_of_prefix(&text)?;
    let event = Value::Object(members);
    // The field `prompt::prompt_of` takes.
    let field = match event.get("user_prompt") {
        Some(Value::String(s)) if !s.is_empty() => "user_prompt",
        _ => "prompt",
    };
    let note = if cut.as_deref() == Some(field) {
        Some(format!(
            "prompt longer than {size}: only its first {size} were read for keywords"
        ))
    } else if event.get(field).is_none() {
        Some(format!(
            "event longer than {size}, with no prompt in its first {size}: no keywords read"
        ))
    } else {
        None
    };
    Some((event, note))
}

/// The config `gk rules` and `gk explain` work with: the hooks' view, with
/// the reason on stderr when the file was ignored.
fn effective_config() -> Config {
    let Some(paths) = ClaudePaths::from_env() else {
        return Config::default();
    };
    let loaded = config::load_for_hooks(&paths.config_file());
    if let Some(e) = loaded.error {
        // The reason may quote gk.json (a field name): shown, not acted on.
        let why = e.to_string();
        eprintln!(
            "gk: config ignored, the hooks use the built-in defaults: {}",
            crate::text::escaped(&why)
        );
    }
    loaded.config
}

/// `gk rules`: the effective config as pretty JSON, itself a valid gk.json.
/// ASCII only (other characters as `\uXXXX`), like the hooks' output, so a
/// Windows console code page cannot garble it on its way into a file.
pub fn print_rules() -> crate::error::Result<u8> {
    let config = effective_config();
    let text = serde_json::to_string_pretty(&config)
        .map_err(|e| crate::error::Error::new(format!("could not print the rules: {e}")))?;
    if let Some(paths) = ClaudePaths::from_env() {
        if stdout_is(&paths.config_file()) {
            eprintln!(
                "gk: note: writing into gk.json itself: the shell empties it before gk reads it, \
                 so this is the built-in config, without rules of yours or a hook switched off \
                 with `gk disable`; to keep those, write to another file and move it over gk.json"
            );
        }
    }
    // ascii_only leaves DEL, which json_escaped writes as \u007f.
    let text = crate::text::json_escaped(&text);
    print_out(&format!("{}\n", jsonout::ascii_only(&text)))?;
    Ok(0)
}

/// Whether stdout is the file at `path` (`gk rules > gk.json`). Unix only:
/// on Windows the shells that truncate (cmd, PowerShell) are not told
/// apart here, and docs/configuration.md gives the safe recipe.
#[cfg(unix)]
fn stdout_is(path: &std::path::Path) -> bool {
    use std::os::fd::AsFd;
    use std::os::unix::fs::MetadataExt;
    let Ok(fd) = std::io::stdout().as_fd().try_clone_to_owned() else {
        return false;
    };
    let (Ok(out), Ok(file)) = (std::fs::File::from(fd).metadata(), std::fs::metadata(path)) else {
        return false;
    };
    out.is_file() && (out.dev(), out.ino()) == (file.dev(), file.ino())
}

#[cfg(not(unix))]
fn stdout_is(_path: &std::path::Path) -> bool {
    false
}

/// Print to stdout; a closed pipe (`gk rules | head`) is not an error, but
/// any other failed write (`gk rules > gk.json` on a full disk) is.
fn print_out(text: &str) -> crate::error::Result<()> {
    let mut stdout = std::io::stdout().lock();
    match stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
    {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(crate::error::Error::new(
            format!("could not write to stdout: {e}"),
        )),
        _ => Ok(()),
    }
}

/// `gk explain "<prompt>"`: which rule and keyword fire, in plain text.
pub fn explain(prompt_text: &str) -> crate::error::Result<u8> {
    let config = effective_config();
    print_out(&explanation(prompt_text, &config))?;
    Ok(0)
}

fn explanation(prompt_text: &str, config: &Config) -> String {
    let a = prompt::analyse(prompt_text, config);
    let c = &a.choice;
    let mut out = String::new();
    out.push_str(&format!(
        "check mode: {}\n",
        if a.check_mode {
            "yes ([check] prefix stripped; the task will not be run)"
        } else {
            "no"
        }
    ));
    out.push_str(&format!("words:      {}\n", a.word_count));
    for &i in &a.skipped_for_length {
        let rule = &config.models[i];
        let limit = rule.word_limit(config.haiku_max_words).unwrap_or(0);
        out.push_str(&format!(
            "skipped:    {} (only for prompts of at most {limit} words)\n",
            rule.label
        ));
    }
    match c.rule {
        Some(i) => out.push_str(&format!(
            "model:      {} ({}) -- rule {} of {}, keyword '{}'\n",
            c.label,
            c.model,
            i + 1,
            config.models.len(),
            c.trigger
        )),
        None => out.push_str(&format!(
            "model:      {} ({}) -- default, no rule keyword found\n",
            c.label, c.model
        )),
    }
    out.push_str(&format!("use for:    {}\n", c.purpose));
    match a.effort {
        Some((level, kw)) => out.push_str(&format!("effort:     {level} (keyword '{kw}')\n")),
        None => out.push_str("effort:     none (no effort keyword; keep the current setting)\n"),
    }
    if let Some(w) = c.warning {
        out.push_str(&format!("warning:    {w}\n"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn explanation_names_rule_keyword_words_and_effort() {
        let text = explanation("[check] please audit the ttl", &Config::default());
        assert!(text.contains("check mode: yes"), "{text}");
        assert!(text.contains("words:      4\n"), "{text}");
        assert!(
            text.contains("Opus 5.5 (claude-opus-5-5) -- rule 1 of 4, keyword 'ttl'"),
            "{text}"
        );
        assert!(
            text.contains("effort:     high (keyword 'audit')"),
            "{text}"
        );
    }

    #[test]
    fn explanation_reports_length_skip_and_default() {
        let text = explanation(
            "ok one two three four five six seven eight",
            &Config::default(),
        );
        assert!(
            text.contains("skipped:    Haiku 4.5 (only for prompts of at most 8 words)"),
            "{text}"
        );
        assert!(text.contains("default, no rule keyword found"), "{text}");
        assert!(text.contains("effort:     none"), "{text}");
    }
}
