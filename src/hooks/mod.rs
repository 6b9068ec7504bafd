//! The hot path: `gk hook prompt` (UserPromptSubmit) and `gk hook stop`
//! (Stop), ports of the Python v5 gatekeeper and state monitor,
//! `gk hook session` (SessionStart, [`session`]: the setup check, which
//! reads the settings files through `crate::registry`) and
//! `gk statusline`. Each prompt, Stop or status line run reads stdin and
//! at most five small files (`<claude dir>/hooks/gk.json`; this session's
//! record in the state folder; when the session has no record, the shared
//! `<claude dir>/hooks/task_state.json`, the folder's pointer and the
//! record it names; in global scope the shared file only — see
//! [`state::locate`]), prints at most one line and exits 0; the session
//! check reads gk.json, the settings files and the same records. It never
//! lists the state folder, so the number of records in it costs nothing.
//! Nothing in this folder may spawn a process, open a connection or write
//! a file (see
//! docs/maintainers/hooks-internals.md, "How the prime directive is kept";
//! a test scans this folder's source).
//!
//! For `gk doctor`, two read-only, side-effect-free entry points report
//! things exactly as the hooks would:
//!
//! - [`load_for_hooks`]`(path) -> LoadedConfig`: the config the hooks use
//!   (built-in defaults when the file is absent, the choices a broken file
//!   still makes kept) and why the file was ignored, if it was; the error
//!   displays as `path:line:col: reason`.
//! - [`read_state`]`(path) -> StateFile`, then
//!   [`StateFile::verdict`]`(now, stale_hours) -> StateVerdict`:
//!   missing / unreadable(reason) / no status / bad status(value) /
//!   in progress(stale, age hours) / clean(age hours). `read_state` is the
//!   only I/O (one read and its mtime); `verdict` is pure.

pub(crate) mod advice;
#[allow(clippy::unreadable_literal)]
mod advice_weights;
pub(crate) mod config;
pub mod convention;
mod follow;
pub(crate) mod input;
pub mod jsonout;
pub(crate) mod keywords;
pub(crate) mod plugin;
pub(crate) mod prompt;
mod pytext;
pub mod session;
pub(crate) mod state;
pub(crate) mod statusline;
mod stop;
pub(crate) mod switch_guard;
pub(crate) mod transcript;
pub(crate) mod voice;

use std::time::SystemTime;

use config::{Config, StateScope};
use state::{locate, Located, StateFile};

use crate::console::Console;
use crate::env::Env;
use crate::hookcmd::HookKind;
use crate::paths::ClaudePaths;

/// Run one hook; returns the process exit code, which is always 0. A bug
/// that panics is caught here (main installs a silent panic hook first), so
/// it can neither print to stderr nor change the exit code.
pub fn run(hook: HookKind, env: &Env, c: &mut Console<'_>) -> u8 {
    let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        if let Some(out) = answer(hook, env, c) {
            let _ = c.out.write_all(out.as_bytes());
            let _ = c.out.flush();
        }
    }));
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
fn read_stdin(env: &Env, c: &mut Console<'_>, keep: usize) -> input::Input {
    if env.stdin_is_terminal() {
        input::Input::default()
    } else {
        input::read_input(&mut *c.input, keep)
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
    let note = loaded
        .error
        .as_ref()
        .map(|e| voice::config_note(&e.to_string(), NOTE_CHARS));
    (loaded.config, note)
}

/// The event's `session_id` when it is a non-empty string.
fn session_id_of(event: &serde_json::Value) -> Option<&str> {
    event
        .get("session_id")
        .and_then(serde_json::Value::as_str)
        .filter(|s| !s.is_empty())
}

/// The variable the client sets for every hook command: the project root
/// it resolved when the session started (the folder `claude` was started
/// in), which stays the same when Claude's shell changes folder.
pub const PROJECT_DIR_VAR: &str = "CLAUDE_PROJECT_DIR";

/// The folder this session works for, as a key of the state folder (see
/// [`crate::paths::folder_key`]): the client's project root
/// (`CLAUDE_PROJECT_DIR`, `project_dir`), else the status line's
/// `workspace.project_dir`, else the event's `cwd`. The project root comes
/// first because the event's `cwd` follows the shell: a session that `cd`s
/// into `src/` is still the project's session, and its successor starts in
/// the root again.
pub fn folder_of(
    os: crate::platform::Os,
    project_dir: Option<&std::ffi::OsStr>,
    event: Option<&serde_json::Value>,
) -> Option<String> {
    let text = |v: Option<&serde_json::Value>| {
        v.and_then(serde_json::Value::as_str)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
    };
    project_dir
        .filter(|v| !v.is_empty())
        .map(|v| v.to_string_lossy().into_owned())
        .or_else(|| text(event.and_then(|e| e.pointer("/workspace/project_dir"))))
        .or_else(|| text(event.and_then(|e| e.get("cwd"))))
        .and_then(|f| crate::paths::folder_key(os, &f))
}

/// The state for this event under the configured scope (see [`state::locate`]).
fn state_for(
    config: &Config,
    paths: Option<&ClaudePaths>,
    home: Option<&std::path::Path>,
    event: Option<&serde_json::Value>,
    env: &Env,
) -> Located {
    let os = crate::platform::Os::current();
    let shared = paths.map(ClaudePaths::state_file);
    let dir = match config.state.scope {
        StateScope::Global => None,
        StateScope::Session => crate::paths::state_dir_for(os, home, env),
    };
    let folder = match config.state.scope {
        StateScope::Global => None,
        StateScope::Session => folder_of(os, env.var_os(PROJECT_DIR_VAR).as_deref(), event),
    };
    locate(
        os,
        config.state.scope,
        event.and_then(session_id_of),
        dir.as_deref(),
        shared.as_deref(),
        folder.as_deref(),
    )
}

/// The hook's stdout, or `None` for no output.
fn answer(hook: HookKind, env: &Env, c: &mut Console<'_>) -> Option<String> {
    let home = crate::paths::home_dir(env);
    let paths = ClaudePaths::resolve(env.var_os("CLAUDE_CONFIG_DIR"), home.clone());
    let paths = paths.as_ref();
    // gk.json, the line saying why it was ignored, and stdin, for every
    // hook but the session check (which reads its own).
    let read = |c: &mut Console<'_>| {
        let (config, note) = hook_config(paths);
        // The v5 Stop hook ignores its event; per session it needs the id.
        let keep = match (hook, config.state.scope) {
            (HookKind::Stop, StateScope::Global) => 0,
            _ => input::MAX_EVENT_BYTES,
        };
        (read_stdin(env, c, keep), config, note)
    };
    let state = |config: &Config, event: Option<&serde_json::Value>| {
        state_for(config, paths, home.as_deref(), event, env)
    };
    let now = SystemTime::now;
    match hook {
        HookKind::Session => session_answer(home.clone(), paths, env, c),
        HookKind::Prompt => {
            let (input, config, note) = read(c);
            let state = |event: Option<&serde_json::Value>| state(&config, event);
            respond_prompt(&input, &config, note, state, transcript::of_event, now())
        }
        HookKind::Stop => {
            let (input, config, note) = read(c);
            let state = |event: Option<&serde_json::Value>| state(&config, event);
            respond_stop(&input, &config, note, state, now())
        }
        HookKind::PreSwitch | HookKind::PostSwitch => {
            let (input, config, _) = read(c);
            let state = |event: Option<&serde_json::Value>| state(&config, event);
            let pre = hook == HookKind::PreSwitch;
            respond_switch(pre, &input, &config, state, now())
        }
    }
}

/// `gk hook session`: switched off in gk.json, or with no home folder and
/// no `CLAUDE_CONFIG_DIR` (no user settings to read), it drains stdin and
/// prints nothing; otherwise see [`session::answer`].
fn session_answer(
    home: Option<std::path::PathBuf>,
    paths: Option<&ClaudePaths>,
    env: &Env,
    c: &mut Console<'_>,
) -> Option<String> {
    let loaded = paths.map(|p| config::load_for_hooks(&p.config_file()));
    let on = loaded.as_ref().is_some_and(|l| l.config.session.enabled);
    let input = read_stdin(env, c, if on { session::MAX_EVENT_BYTES } else { 0 });
    let (paths, loaded) = (paths?, loaded?);
    if !on {
        return None;
    }
    let config = &loaded.config;
    let event = event_of(&input).map(|(e, _)| e);
    let located = state_for(config, Some(paths), home.as_deref(), event.as_ref(), env);
    let machine = crate::machine::Machine::with_paths(home, paths, env);
    // Started by a plugin (gk's): a plugin cannot edit CLAUDE.md, so the
    // convention goes to Claude here. (Its hooks are in the registry's
    // table like every enabled plugin's.)
    let plugin_root = env
        .var_os(plugin::PLUGIN_ROOT_VAR)
        .filter(|v| !v.is_empty());
    let convention = plugin_root
        .as_ref()
        .and_then(|_| plugin::convention_context(paths));
    let (warnings, settings_copy) =
        session::answer(&input, &machine, config, loaded.error.as_ref());
    // Both copies run (settings and gk's plugin): the settings copy speaks.
    let quiet = plugin_root.is_some() && settings_copy;
    let warnings = warnings.filter(|_| !quiet);
    // A task an earlier session left in progress in this folder: one line
    // for the user (after the warnings), the whole story for Claude.
    let earlier = located.earlier.as_ref().filter(|_| !quiet).map(|e| {
        let pointer = located
            .pointer
            .as_deref()
            .zip(event.as_ref().and_then(session_id_of));
        follow::session_start(
            e,
            located.record.as_deref(),
            pointer,
            SystemTime::now(),
            config.stale_hours,
        )
    });
    let text = match (warnings, &earlier) {
        (Some(w), Some((line, _))) => Some(format!("{w}\n{line}")),
        (w, e) => w.or_else(|| e.as_ref().map(|(line, _)| line.clone())),
    };
    let context = match (convention, earlier.as_ref().map(|(_, c)| c.as_str())) {
        (Some(conv), Some(e)) => Some(format!("{conv}\n{e}")),
        (conv, e) => conv.or_else(|| e.map(str::to_string)),
    };
    jsonout::session_output(text.as_deref(), context.as_deref())
}

/// The pure part of a hook run: what the prompt hook prints for what it
/// read of stdin (`input`), with `config` (and the line saying why gk.json
/// was ignored, if it was), the task state for the event (`state` is
/// called at most once, only when the hook needs it), what the transcript
/// says of the model in use (`current`) and the time `now`. `None`: print
/// nothing. [`respond_stop`] and [`respond_switch`] are the same for the
/// Stop hook and the switch guard; what the fuzz target
/// `fuzz/fuzz_targets/hook_input.rs` drives.
pub fn respond_prompt(
    input: &input::Input,
    config: &Config,
    mut note: Option<String>,
    state: impl FnOnce(Option<&serde_json::Value>) -> Located,
    current: impl FnOnce(&serde_json::Value) -> transcript::Current,
    now: SystemTime,
) -> Option<String> {
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
    let located = state(Some(&event));
    let stale_hours = config.stale_hours;
    // An earlier session's task in flight speaks for this session
    // until it writes its own record.
    let (file, earlier_in_flight) = follow::speaking(&located, now, stale_hours);
    let a = prompt::analyse(prompt::prompt_of(&event), config);
    let (mut msg, mut ctx) = prompt::respond(
        &a,
        config,
        file,
        now,
        note.as_deref(),
        located.record.as_deref(),
    );
    let next = follow::next_of(file, config);
    if config.state.scope == StateScope::Session {
        let current = current(&event);
        msg = voice::prompt_message(&turn_of(
            &a,
            config,
            file,
            earlier_in_flight.is_some(),
            located.earlier.as_ref(),
            next.as_deref(),
            note.as_deref(),
            now,
            &current,
        ));
    }
    // Right after the record sentence that opens the context: a
    // fixed sentence before any text taken from a record.
    if let (Some(record), Some(pointer)) = (&located.record, &located.pointer) {
        let at = prompt::record_sentence(record).trim_end().len();
        ctx.insert_str(
            at,
            &prompt::pointer_sentence(
                pointer,
                session_id_of(&event).unwrap_or_default(),
                config.state.next_on(),
            ),
        );
    }
    if let Some(e) = &located.earlier {
        let (_, sentence) = follow::prompt_lines(e, now, stale_hours);
        ctx.push_str(&sentence);
    }
    Some(jsonout::prompt_output(&msg, &ctx))
}

/// The Stop hook's answer (see [`respond_prompt`]): it always answers.
pub fn respond_stop(
    input: &input::Input,
    config: &Config,
    note: Option<String>,
    state: impl FnOnce(Option<&serde_json::Value>) -> Located,
    now: SystemTime,
) -> Option<String> {
    if !config.stop.enabled {
        return None;
    }
    // v5 ignores the Stop event; per session, its id picks the record.
    let event = match config.state.scope {
        StateScope::Global => None,
        StateScope::Session => event_of(input).map(|(event, _)| event),
    };
    let located = state(event.as_ref());
    let stale_hours = config.stale_hours;
    let speaker = follow::Speaker::of(&located, now, stale_hours);
    let next = follow::next_of(speaker.file, config);
    let msg = voice::stop_message(&speaker.line(
        &located,
        now,
        stale_hours,
        next.as_deref(),
        note.as_deref(),
    ));
    Some(jsonout::stop_output(&msg))
}

/// The switch guard's answer (see [`respond_prompt`]): before the switch
/// (`pre`, PreModelSwitch) or after it.
pub fn respond_switch(
    pre: bool,
    input: &input::Input,
    config: &Config,
    state: impl FnOnce(Option<&serde_json::Value>) -> Located,
    now: SystemTime,
) -> Option<String> {
    let hook = if pre {
        HookKind::PreSwitch
    } else {
        HookKind::PostSwitch
    };
    if !config.enabled(hook) {
        return None;
    }
    let (event, _) = event_of(input)?;
    let located = state(Some(&event));
    switch_guard::answer(pre, &event, config, &located, now)
}

/// The turn as the composer reads it (per-session scope): the task in
/// flight (`file`: this session's record, or the earlier session's when
/// `earlier_speaks`), an earlier session's stale task, gk's pick, Claude's
/// hint and gk's own notes.
#[allow(clippy::too_many_arguments)]
fn turn_of<'a>(
    a: &'a prompt::Analysis<'a>,
    config: &'a Config,
    file: &StateFile,
    earlier_speaks: bool,
    earlier: Option<&state::Earlier>,
    next: Option<&'a str>,
    note: Option<&'a str>,
    now: SystemTime,
    current: &'a transcript::Current,
) -> voice::Turn<'a> {
    let stale_hours = config.stale_hours;
    let task = follow::task_of(file, earlier_speaks, now, stale_hours);
    let earlier_stale = earlier
        .filter(|e| !follow::in_flight(e, now, stale_hours))
        .map(|e| follow::stale_note(e, now, stale_hours));
    let pick = prompt::pick(a, config);
    let hint = next.map(|n| {
        let differs = follow::hint_differs(n, config, a.choice.label, a.effort.map(|(e, _)| e));
        (n, differs)
    });
    voice::Turn {
        check_header: prompt::check_header(a),
        task,
        earlier_stale,
        pick,
        hint,
        notes: note.into_iter().collect(),
        current_model: current.model.as_deref(),
        current_effort: current.effort.as_deref(),
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
    // Invalid bytes made text (three bytes each) count against the same
    // bound: past it the event is read as one cut off.
    let (text, cut_here) = input::lossy_within(&input.bytes, input::MAX_EVENT_BYTES);
    if input.complete && !cut_here {
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
