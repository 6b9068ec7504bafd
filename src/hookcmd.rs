//! What a hook command string runs, decided by meaning rather than text.
//!
//! Claude Code deduplicates hook registrations by the raw command string:
//! `$HOME/.claude/hooks/gk hook prompt` and `~/.claude/hooks/gk hook prompt`
//! both run. So install must recognise its own entries under every spelling
//! (to leave exactly one), uninstall must find them all, and doctor must
//! see two spellings of one hook as "fires twice". All three use this
//! module. Everything here is pure: the platform and the home folder are
//! values in a [`CommandContext`], so the Windows branches run in Linux tests.

use std::path::PathBuf;

use crate::platform::Os;

/// Which of gk's hooks: one row of [`HOOKS`] each.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum HookKind {
    Prompt,
    Stop,
    /// `gk hook session` (SessionStart): checks the setup the session loads.
    Session,
    /// `gk hook pre-model-switch` (PreModelSwitch): asks before a switch
    /// mid-task.
    PreSwitch,
    /// `gk hook post-model-switch` (PostModelSwitch): tells Claude a switch
    /// happened mid-task.
    PostSwitch,
}

/// The first client version that knows PreModelSwitch and PostModelSwitch
/// (measured: 2.1.250 and earlier reject both names, 2.1.251 takes them
/// and runs PreModelSwitch at `/model`; docs/maintainers/claude-code-facts.md).
/// A client older than this opens a warning dialog at every start for an
/// event it does not know.
pub const SWITCH_EVENTS_SINCE: ClientVersion = ClientVersion(2, 1, 251);

/// A Claude Code version, `major.minor.patch`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct ClientVersion(pub u32, pub u32, pub u32);

impl ClientVersion {
    /// The version in `claude --version`'s output (`2.1.332 (Claude
    /// Code)`): the first word made of three dot-separated numbers.
    pub fn parse(text: &str) -> Option<ClientVersion> {
        text.split_whitespace().find_map(|word| {
            let mut parts = word.split('.').map(|p| p.parse::<u32>().ok());
            let v = ClientVersion(parts.next()??, parts.next()??, parts.next()??);
            parts.next().is_none().then_some(v)
        })
    }
}

impl std::fmt::Display for ClientVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}.{}", self.0, self.1, self.2)
    }
}

/// How a smoke test judges what a hook printed for its sample payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SmokeCheck {
    /// The `UserPromptSubmit` additionalContext the prompt hook prints.
    PromptContext,
    /// The single `STATE [...]` systemMessage of the Stop hook.
    StopMessage,
    /// Nothing, or what the session check prints (`smoke::session_report`).
    SessionReport,
    /// Nothing, or a JSON object answering the row's event
    /// (`hookSpecificOutput.hookEventName`).
    SilentOrEvent,
}

/// What a missing registration of a hook costs (doctor's severity).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WhenMissing {
    /// The hook's job is not done at all: an error.
    Error,
    /// Only a warning is lost (the session check): a warning.
    Warning,
}

/// Everything gk knows about one of its hooks, in one row: a new hook
/// event is a row here plus its code in `hooks/`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HookSpec {
    pub kind: HookKind,
    /// The Claude Code event it is registered under.
    pub event: &'static str,
    /// The word after `gk hook`.
    pub arg: &'static str,
    /// The Python v5 script that did this job, if one did.
    pub legacy_script: Option<&'static str>,
    /// Seconds the client waits (`timeout` in the registration); `None`:
    /// the client's default.
    pub timeout: Option<i64>,
    /// The status line the client shows while the hook runs.
    pub status_message: Option<&'static str>,
    /// The gk.json key that switches it off (`"<key>": {"enabled": false}`).
    pub config_key: &'static str,
    /// The event-specific members of the smoke test's sample payload (a
    /// JSON object's text), beside the fields every event carries.
    pub smoke_fields: &'static str,
    /// How the smoke test judges its answer.
    pub smoke_check: SmokeCheck,
    /// What doctor makes of it not being registered.
    pub when_missing: WhenMissing,
    /// The first client version that knows the event; `None`: every
    /// version gk supports. Such a hook is registered only where the
    /// client is known to be at least this version.
    pub since: Option<ClientVersion>,
}

/// gk's hooks, in the order install registers them and doctor reports
/// them; row `i` is the hook whose [`HookKind::index`] is `i`.
pub const HOOKS: [HookSpec; 5] = [
    HookSpec {
        kind: HookKind::Prompt,
        event: "UserPromptSubmit",
        arg: "prompt",
        legacy_script: Some("gatekeeper.py"),
        timeout: None,
        status_message: Some("Gatekeeper assessing prompt..."),
        config_key: "prompt",
        smoke_fields: r#"{"prompt_id": "gk-smoke", "prompt": "explain what the smoke test checks"}"#,
        smoke_check: SmokeCheck::PromptContext,
        when_missing: WhenMissing::Error,
        since: None,
    },
    HookSpec {
        kind: HookKind::Stop,
        event: "Stop",
        arg: "stop",
        legacy_script: Some("state_monitor.py"),
        timeout: Some(5),
        status_message: None,
        config_key: "stop",
        smoke_fields: r#"{"effort": {"level": "medium"}, "stop_hook_active": false,
            "last_assistant_message": "Done.", "background_tasks": [], "session_crons": []}"#,
        smoke_check: SmokeCheck::StopMessage,
        when_missing: WhenMissing::Error,
        since: None,
    },
    // About a millisecond; a settings file on a stalled network drive must
    // not hold the session's start for the client's default minute.
    HookSpec {
        kind: HookKind::Session,
        event: "SessionStart",
        arg: "session",
        legacy_script: None,
        timeout: Some(5),
        status_message: None,
        config_key: "session",
        smoke_fields: r#"{"source": "startup"}"#,
        smoke_check: SmokeCheck::SessionReport,
        when_missing: WhenMissing::Warning,
        since: None,
    },
    HookSpec {
        kind: HookKind::PreSwitch,
        event: "PreModelSwitch",
        arg: "pre-model-switch",
        legacy_script: None,
        timeout: Some(5),
        status_message: None,
        config_key: "switch",
        smoke_fields: r#"{"prompt_id": "gk-smoke", "from_model": "claude-opus-5-5",
            "to_model": "claude-sonnet-5-5", "requested_model": "sonnet", "source": "command",
            "context_tokens": 12, "prompt_cache_warm": false, "cache_ttl": "5m",
            "estimated_cache_write_usd": 0, "pricing": "catalog"}"#,
        smoke_check: SmokeCheck::SilentOrEvent,
        when_missing: WhenMissing::Warning,
        since: Some(SWITCH_EVENTS_SINCE),
    },
    HookSpec {
        kind: HookKind::PostSwitch,
        event: "PostModelSwitch",
        arg: "post-model-switch",
        legacy_script: None,
        timeout: Some(5),
        status_message: None,
        config_key: "switch",
        smoke_fields: r#"{"prompt_id": "gk-smoke", "from_model": "claude-opus-5-5",
            "to_model": "claude-sonnet-5-5", "requested_model": "sonnet", "source": "command"}"#,
        smoke_check: SmokeCheck::SilentOrEvent,
        when_missing: WhenMissing::Warning,
        since: Some(SWITCH_EVENTS_SINCE),
    },
];

impl HookKind {
    /// In the order install registers them and doctor reports them.
    pub const ALL: [HookKind; HOOKS.len()] = {
        let mut all = [HookKind::Prompt; HOOKS.len()];
        let mut i = 0;
        while i < HOOKS.len() {
            all[i] = HOOKS[i].kind;
            i += 1;
        }
        all
    };

    /// The hooks every supported client knows, in [`HookKind::ALL`]'s
    /// order: what is registered wherever the client's version is not
    /// known (a plugin, a managed drop-in, no `claude` found).
    pub const ALWAYS: [HookKind; 3] = [HookKind::Prompt, HookKind::Stop, HookKind::Session];

    /// The hooks a client of `version` knows (`None`: unknown, so only
    /// [`HookKind::ALWAYS`]).
    pub fn known_to(version: Option<ClientVersion>) -> Vec<HookKind> {
        HOOKS
            .iter()
            .filter(|h| {
                h.since
                    .is_none_or(|since| version.is_some_and(|v| v >= since))
            })
            .map(|h| h.kind)
            .collect()
    }

    /// This hook's row of [`HOOKS`].
    pub fn spec(self) -> &'static HookSpec {
        &HOOKS[self.index()]
    }

    /// The Claude Code event this hook is registered under.
    pub fn event(self) -> &'static str {
        self.spec().event
    }

    /// The word after `gk hook`.
    pub fn arg(self) -> &'static str {
        self.spec().arg
    }

    /// The hook whose `gk hook` word is `arg`.
    pub fn from_arg(arg: &str) -> Option<HookKind> {
        HOOKS.iter().find(|h| h.arg == arg).map(|h| h.kind)
    }

    /// The Python v5 script that did this job; the session check has none.
    pub fn legacy_script(self) -> Option<&'static str> {
        self.spec().legacy_script
    }

    /// The index of this hook in [`HookKind::ALL`] and [`HOOKS`] (for
    /// per-hook arrays).
    pub fn index(self) -> usize {
        self as usize
    }
}

/// How Claude Code starts the registered command: through which shell, or
/// with none at all.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ShellForm {
    /// sh/bash: Linux, macOS, and Windows with Git Bash.
    Bash,
    /// Windows without Git Bash (entry carries `"shell": "powershell"`).
    PowerShell,
    /// No shell: `command` is the program's absolute path and `args` its
    /// words (client 2.1.139+). The Windows default.
    Exec,
}

/// Everything the command logic needs to know about the machine, as values.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandContext {
    pub os: Os,
    /// The home folder in native form (`/home/u`, `C:\Users\u`).
    pub home: PathBuf,
    /// `<claude dir>` in native form.
    pub claude_dir: PathBuf,
    /// `CLAUDE_CONFIG_DIR` as set (native form), if it is.
    pub claude_config_dir: Option<PathBuf>,
}

impl CommandContext {
    /// A machine whose `<claude dir>` is the default `<home>/.claude` and
    /// with no `CLAUDE_CONFIG_DIR`; `home` is spelled natively for `os`
    /// (`/home/u`, `C:\Users\u`). What the tests and fuzz targets describe.
    pub fn with_home(os: Os, home: &str) -> CommandContext {
        let sep = if os.is_windows() { '\\' } else { '/' };
        CommandContext {
            os,
            home: PathBuf::from(home),
            claude_dir: PathBuf::from(format!("{}{sep}.claude", home.trim_end_matches(sep))),
            claude_config_dir: None,
        }
    }
}

/// A command to register: the `command` string, plus the `args` (exec form)
/// or the `shell` field it needs, if any.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookCommand {
    pub command: String,
    /// `Some` for the exec form: `command` is the program, run with these
    /// arguments and no shell.
    pub args: Option<Vec<String>>,
    /// `Some("powershell")` for the PowerShell form; `None` means the default shell.
    pub shell: Option<&'static str>,
}

impl HookCommand {
    /// What the entry runs as one command string, as
    /// `settings::HookEntry::run_command` spells a registered entry: the
    /// command itself, or for the exec form each word in single quotes.
    pub fn run_command(&self) -> String {
        match &self.args {
            Some(args) => exec_spelling(&self.command, args),
            None => self.command.clone(),
        }
    }
}

/// What a registered command string runs, once spelling is taken away.
/// Two are equal when they run the same program with the same arguments
/// (`shown` is how a message spells it, not what runs).
#[derive(Debug, Clone)]
pub struct Invocation {
    /// The program, as a normalised absolute path where it could be resolved
    /// (forward slashes; on Windows lower-cased, drive as `c:/`, `.exe` dropped),
    /// or the bare name when it is looked up on PATH.
    pub program: String,
    pub args: Vec<String>,
    /// The program for messages: as resolved, with `/` separators, in the
    /// case it was written (the normalised `program` is lower case on
    /// Windows, which no user wrote).
    pub shown: String,
}

impl PartialEq for Invocation {
    fn eq(&self, other: &Self) -> bool {
        (&self.program, &self.args) == (&other.program, &other.args)
    }
}

impl Eq for Invocation {}

impl std::hash::Hash for Invocation {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        (&self.program, &self.args).hash(state);
    }
}

/// Who a registration belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Owner {
    /// Runs `gk hook <kind>` (any path, any spelling).
    Gk(HookKind),
    /// Runs the Python v5 script for this kind (`gatekeeper.py` / `state_monitor.py`).
    Legacy(HookKind),
    /// Somebody else's hook; never touched.
    Foreign,
}

/// The command string install registers for `kind` on this machine.
///
/// Bash form (Linux, macOS, Windows with Git Bash): the binary path in
/// double quotes, spelled from `$HOME` when `<claude dir>` is under the home
/// folder (Git Bash expands `$HOME`; `%USERPROFILE%` and unquoted
/// backslashes do not survive it), else as an absolute path with forward
/// slashes. PowerShell form: `& "…"` (a line that starts with a quoted
/// string is an expression in PowerShell, not a call) spelled from
/// `$env:USERPROFILE`, with `shell: powershell`. Exec form: the binary's
/// absolute native path (nothing expands without a shell) and
/// `["hook", "<kind>"]`: no quoting, no shell start, spaces in the user
/// name harmless.
pub fn canonical(kind: HookKind, ctx: &CommandContext, shell: ShellForm) -> HookCommand {
    let bin = ctx.os.binary_name();
    let rel = home_relative(ctx);
    match shell {
        ShellForm::Exec => {
            let sep = if ctx.os.is_windows() { '\\' } else { '/' };
            let mut dir = ctx.claude_dir.to_string_lossy().into_owned();
            if ctx.os.is_windows() {
                dir = dir.replace('/', "\\");
            }
            let dir = dir.trim_end_matches(sep);
            exec_at(kind, &format!("{dir}{sep}hooks{sep}{bin}"))
        }
        ShellForm::Bash => {
            let path = match rel {
                Some(rel) => format!("$HOME/{rel}/hooks/{bin}"),
                None => {
                    bash_double_quote_escape(&shell_slashes(
                        &ctx.claude_dir.to_string_lossy(),
                        ctx.os,
                    ))
                    .trim_end_matches('/')
                    .to_string()
                        + "/hooks/"
                        + bin
                }
            };
            HookCommand {
                command: format!("\"{path}\" hook {}", kind.arg()),
                args: None,
                shell: None,
            }
        }
        ShellForm::PowerShell => {
            let path = match rel {
                Some(rel) => format!("$env:USERPROFILE\\{}\\hooks\\{bin}", rel.replace('/', "\\")),
                None => {
                    let dir = ctx.claude_dir.to_string_lossy().replace('/', "\\");
                    format!(
                        "{}\\hooks\\{bin}",
                        powershell_double_quote_escape(dir.trim_end_matches('\\'))
                    )
                }
            };
            HookCommand {
                command: format!("& \"{path}\" hook {}", kind.arg()),
                args: None,
                shell: Some("powershell"),
            }
        }
    }
}

/// The exec form of `kind`'s registration for the program at `program`:
/// no shell, the path as written, `hook <kind>` as its arguments.
pub fn exec_at(kind: HookKind, program: &str) -> HookCommand {
    HookCommand {
        command: program.to_string(),
        args: Some(vec!["hook".to_string(), kind.arg().to_string()]),
        shell: None,
    }
}

/// `<claude dir>` relative to home, with forward slashes, when it is inside
/// home (`.claude` in the usual case).
fn home_relative(ctx: &CommandContext) -> Option<String> {
    // Folders, not programs: a trailing `.exe` is part of the name.
    let home = normalize_spelling(&ctx.home.to_string_lossy(), ctx.os);
    let dir = normalize_spelling(&ctx.claude_dir.to_string_lossy(), ctx.os);
    let home = home.trim_end_matches('/');
    let rest = dir.strip_prefix(home)?.strip_prefix('/')?;
    if rest.is_empty() {
        return None;
    }
    // Keep the original letter case of the relative part (normalize_path
    // lower-cases on Windows).
    let original = shell_slashes(&ctx.claude_dir.to_string_lossy(), ctx.os);
    let original = original.trim_end_matches('/');
    // Lower-casing may change a name's length in bytes (the Kelvin sign,
    // a dotted capital I): then the cut falls elsewhere, maybe inside a
    // character, and the absolute form is used.
    let tail = original.get(original.len().saturating_sub(rest.len())..)?;
    if tail.eq_ignore_ascii_case(rest)
        && !tail.contains(['"', '$', '`', '\\'])
        && !tail.chars().any(is_typographic_double_quote)
    {
        Some(tail.to_string())
    } else {
        None
    }
}

/// A native path as bash should see it: on Windows with forward slashes
/// (Git Bash eats unquoted backslashes); elsewhere a backslash is an
/// ordinary character of a file name and stays (quoting escapes it).
fn shell_slashes(s: &str, os: Os) -> String {
    if os.is_windows() {
        s.replace('\\', "/")
    } else {
        s.to_string()
    }
}

fn bash_double_quote_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(c, '"' | '$' | '`' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

fn powershell_double_quote_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        // PowerShell's grammar takes the typographic double quotes
        // (“ ” „) for `"`: unescaped, one ends the string.
        if matches!(c, '"' | '$' | '`') || is_typographic_double_quote(c) {
            out.push('`');
        }
        out.push(c);
    }
    out
}

/// A quote PowerShell reads as `"` (U+201C, U+201D, U+201E).
fn is_typographic_double_quote(c: char) -> bool {
    matches!(c, '\u{201c}'..='\u{201e}')
}

/// `word` as one PowerShell string in single quotes: a `'`, and each
/// quote PowerShell reads as one (‘ ’ ‚ ‛, U+2018 to U+201B), doubled.
pub fn ps_single_quoted(word: &str) -> String {
    let mut out = String::from("'");
    for c in word.chars() {
        if matches!(c, '\'' | '\u{2018}'..='\u{201b}') {
            out.push(c);
        }
        out.push(c);
    }
    out.push('\'');
    out
}

/// `word` as one `sh` word in single quotes, a `'` inside written `'\''`
/// (close, an escaped quote, reopen): what a person types into sh. (The
/// spelling of an exec-form handler is [`exec_spelling`]'s, which the
/// Windows reading agrees on too.)
pub fn sh_single_quoted(word: &str) -> String {
    format!("'{}'", word.replace('\'', "'\\''"))
}

/// `word` as one argument a person types into sh: as it is when sh reads
/// none of its bytes specially (a backslash it does: it escapes the next
/// byte), else [`sh_single_quoted`].
pub fn sh_word(word: &str) -> String {
    plain_or(word, b"_-./:,+@%=", sh_single_quoted)
}

/// `word` as one argument a person types into PowerShell: as it is when
/// PowerShell reads none of its characters specially (a backslash it does
/// not; a comma makes an array of two arguments, an `@` splats), else
/// [`ps_single_quoted`].
pub fn ps_word(word: &str) -> String {
    plain_or(word, b"_-./\\:+%=", ps_single_quoted)
}

/// `word` as it is when it is not empty and each byte is an ASCII letter,
/// a digit or one of `plain`; else `quoted(word)`.
fn plain_or(word: &str, plain: &[u8], quoted: fn(&str) -> String) -> String {
    let is_plain = |b: u8| b.is_ascii_alphanumeric() || plain.contains(&b);
    if !word.is_empty() && word.bytes().all(is_plain) {
        word.to_string()
    } else {
        quoted(word)
    }
}

/// Parse a command string into what it runs. `None` when the string is
/// beyond what can be decided safely (pipes, `&&`, redirections, variables
/// other than the home/config ones, command substitution, …): callers must
/// then treat it as foreign and, in doctor, say they are unsure.
///
/// Identification is by intent: `%USERPROFILE%` and unquoted Windows
/// backslashes are resolved as the author meant them even though Git Bash
/// would mangle them; such an entry is still "gk's" (to replace or remove),
/// and whether it actually starts is for the smoke test to find out.
pub fn normalize(command: &str, ctx: &CommandContext) -> Option<Invocation> {
    let mut text = command.trim();
    // PowerShell call operator.
    if let Some(rest) = text.strip_prefix('&') {
        if rest.starts_with(char::is_whitespace) {
            text = rest.trim_start();
        }
    }
    let words = split_words(text, ctx)?;
    let (first, rest) = words.split_first()?;
    if first.is_empty() {
        return None;
    }
    let mut program = normalize_program(first, ctx.os);
    let mut shown = shown_program(first, ctx.os);
    let mut args: Vec<String> = rest.to_vec();
    if is_python(&program) {
        // `python [-u|-X …] script.py args`: the script is what runs.
        let script_at = python_script_index(&args)?;
        if !args[script_at].to_ascii_lowercase().ends_with(".py") {
            return None;
        }
        program = normalize_path(&args[script_at], ctx.os);
        shown = shown_program(&args[script_at], ctx.os);
        args = args.split_off(script_at + 1);
    }
    Some(Invocation {
        program,
        args,
        shown,
    })
}

/// Where the script is among a Python interpreter's arguments: after its
/// options, skipping the value of those that take one (`-X utf8`, `-W
/// ignore`). `None` when no script runs (`-c`, `-m`, nothing left).
fn python_script_index(args: &[String]) -> Option<usize> {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        match arg.as_str() {
            "-c" | "-m" => return None,
            "-X" | "-W" => i += 2,
            a if a.starts_with('-') => i += 1,
            _ => return Some(i),
        }
    }
    None
}

/// A shell spelling of an exec-form handler (`command` = program, `args`):
/// every word in single quotes, so nothing expands — as with exec, where no
/// shell runs. `normalize` then reads it like any other command, on every
/// platform: a `'` inside a word is written `'"'"'` (close, a quote in
/// double quotes, reopen), which sh and the Windows reading agree on —
/// `'\''` is sh-only (a Windows user named O'Brien made gk's own exec-form
/// entry unrecognisable).
pub fn exec_spelling(program: &str, args: &[String]) -> String {
    let quote = |w: &str| format!("'{}'", w.replace('\'', "'\"'\"'"));
    let mut out = quote(program);
    for a in args {
        out.push(' ');
        out.push_str(&quote(a));
    }
    out
}

/// Who owns this registration.
pub fn classify(command: &str, ctx: &CommandContext) -> Owner {
    owner_of(normalize(command, ctx).as_ref())
}

/// [`classify`] for a command already normalised (`None`: undecidable,
/// hence foreign).
pub fn owner_of(inv: Option<&Invocation>) -> Owner {
    let Some(inv) = inv else {
        return Owner::Foreign;
    };
    let name = base_name(&inv.program);
    if name == "gk" {
        if let [hook, which] = inv.args.as_slice() {
            if hook == "hook" {
                for kind in HookKind::ALL {
                    if which == kind.arg() {
                        return Owner::Gk(kind);
                    }
                }
            }
        }
        return Owner::Foreign;
    }
    // The v5 scripts took no arguments: a script of the same name called
    // with some is another tool's, and must never be removed as gk's.
    if inv.args.is_empty() {
        for kind in HookKind::ALL {
            if kind
                .legacy_script()
                .is_some_and(|script| name.eq_ignore_ascii_case(script))
            {
                return Owner::Legacy(kind);
            }
        }
    }
    Owner::Foreign
}

/// Who owns a registration found under `event`: as [`classify`], except that
/// the Python v5 scripts count as gk's only under their own event — a
/// `gatekeeper.py` guarding PreToolUse is another tool's.
pub fn classify_under(event: &str, command: &str, ctx: &CommandContext) -> Owner {
    owner_under(classify(command, ctx), event)
}

/// The event rule of [`classify_under`], for an owner already decided.
pub fn owner_under(owner: Owner, event: &str) -> Owner {
    match owner {
        Owner::Legacy(kind) if event != kind.event() => Owner::Foreign,
        owner => owner,
    }
}

/// The last path component (after `/`), without a Windows `.exe`.
fn base_name(program: &str) -> &str {
    let name = program.rsplit('/').next().unwrap_or(program);
    name.strip_suffix(".exe").unwrap_or(name)
}

fn is_python(program: &str) -> bool {
    let name = base_name(program).to_ascii_lowercase();
    let name = name.strip_suffix(".exe").unwrap_or(&name);
    name == "py"
        || name == "pythonw"
        || name == "python"
        || name
            .strip_prefix("python")
            .is_some_and(|v| !v.is_empty() && v.chars().all(|c| c.is_ascii_digit() || c == '.'))
}

fn normalize_program(word: &str, os: Os) -> String {
    if !word.contains(['/', '\\']) {
        // Looked up on PATH: keep the bare name (Windows: case and .exe folded).
        return if os.is_windows() {
            // Trailing dots and spaces dropped, as Windows drops them.
            let lower = word.to_lowercase();
            let lower = match lower.chars().all(|c| c == '.') {
                true => lower.as_str(),
                false => lower.trim_end_matches(['.', ' ']),
            };
            lower.strip_suffix(".exe").unwrap_or(lower).to_string()
        } else {
            word.to_string()
        };
    }
    normalize_path(word, os)
}

/// A path in one spelling: forward slashes, no `//` or `/./`; on Windows also
/// `/c/x` and `C:\x` as `c:/x`, lower case, `.exe` dropped.
pub fn normalize_path(path: &str, os: Os) -> String {
    let mut out = normalize_spelling(path, os);
    if os.is_windows() {
        if let Some(stripped) = out.strip_suffix(".exe") {
            out = stripped.to_string();
        }
        if out.len() == 2 && out.ends_with(':') {
            out.push('/');
        }
    }
    out
}

/// A program as a message shows it: a bare name as written, a path in
/// [`normalize_path`]'s spelling but in the case it was written, `.exe`
/// kept.
fn shown_program(word: &str, os: Os) -> String {
    if word.contains(['/', '\\']) {
        spelling(word, os, false)
    } else {
        word.to_string()
    }
}

/// [`normalize_path`] without dropping `.exe`: for folders.
fn normalize_spelling(path: &str, os: Os) -> String {
    spelling(path, os, true)
}

/// One spelling of a path (see [`normalize_path`]), lower-cased on
/// Windows only when `fold` is set.
fn spelling(path: &str, os: Os, fold: bool) -> String {
    let mut p = path.to_string();
    if os.is_windows() {
        p = p.replace('\\', "/");
        // /c/Users → c:/Users (Git Bash / MSYS drive form)
        let b = p.as_bytes();
        if b.len() >= 2
            && b[0] == b'/'
            && b[1].is_ascii_alphabetic()
            && (b.len() == 2 || b[2] == b'/')
        {
            p = format!("{}:{}", &p[1..2], &p[2..]);
        }
        if fold {
            p = p.to_lowercase();
        }
    }
    let absolute = p.starts_with('/');
    let parts: Vec<&str> = p
        .split('/')
        .filter(|s| !s.is_empty() && *s != ".")
        // Windows drops a name's trailing dots and spaces (`gk.exe.` starts
        // gk.exe); a name of dots only (`..`) is left as it is.
        .map(|s| match os.is_windows() && !s.chars().all(|c| c == '.') {
            true => s.trim_end_matches(['.', ' ']),
            false => s,
        })
        .collect();
    let mut out = parts.join("/");
    if absolute {
        out.insert(0, '/');
    }
    if os.is_windows() && out.len() == 2 && out.ends_with(':') {
        out.push('/');
    }
    out
}

/// Split a command line into words the way a shell would for the simple
/// commands gk cares about; `None` for anything with shell syntax that
/// changes what runs or an unresolvable variable.
fn split_words(text: &str, ctx: &CommandContext) -> Option<Vec<String>> {
    let windows = ctx.os.is_windows();
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut cur));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '\'' => break,
                        c => cur.push(c),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next()? {
                        '"' => break,
                        '\\' if !windows => match chars.next()? {
                            c @ ('"' | '\\' | '$' | '`') => cur.push(c),
                            c => {
                                cur.push('\\');
                                cur.push(c);
                            }
                        },
                        '`' => {
                            if windows {
                                // PowerShell escape character.
                                cur.push(chars.next()?);
                            } else {
                                return None; // command substitution
                            }
                        }
                        '$' => cur.push_str(&expand_variable(&mut chars, ctx)?),
                        // `%VAR%` is Windows' (cmd.exe) syntax; in sh a
                        // `%` is an ordinary character.
                        '%' if windows => cur.push_str(&expand_percent(&mut chars, ctx)?),
                        c => cur.push(c),
                    }
                }
            }
            '\\' if !windows => {
                in_word = true;
                cur.push(chars.next()?);
            }
            '$' => {
                in_word = true;
                cur.push_str(&expand_variable(&mut chars, ctx)?);
            }
            '%' if windows => {
                in_word = true;
                cur.push_str(&expand_percent(&mut chars, ctx)?);
            }
            '~' if !in_word => {
                in_word = true;
                match chars.peek() {
                    None | Some('/') | Some('\\') => cur.push_str(&ctx.home.to_string_lossy()),
                    Some(c) if c.is_whitespace() => cur.push_str(&ctx.home.to_string_lossy()),
                    _ => return None, // ~user
                }
            }
            '|' | ';' | '<' | '>' | '`' | '(' | ')' | '{' | '}' | '*' | '?' | '[' | '&' => {
                return None
            }
            '=' if words.is_empty() && !cur.contains(['/', '\\']) => return None, // VAR=value prefix
            c => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    if in_word {
        words.push(cur);
    }
    Some(words)
}

/// After a `$`: `HOME`, `{HOME}`, `USERPROFILE`, `env:USERPROFILE`,
/// `CLAUDE_CONFIG_DIR` (and braced forms). Anything else is undecidable.
fn expand_variable(
    chars: &mut std::iter::Peekable<std::str::Chars<'_>>,
    ctx: &CommandContext,
) -> Option<String> {
    let braced = chars.peek() == Some(&'{');
    if braced {
        chars.next();
    }
    let mut name = String::new();
    while let Some(&c) = chars.peek() {
        if c.is_ascii_alphanumeric() || c == '_' || (c == ':' && name.eq_ignore_ascii_case("env")) {
            name.push(c);
            chars.next();
        } else {
            break;
        }
    }
    if braced && chars.next()? != '}' {
        return None;
    }
    let name = name
        .strip_prefix("env:")
        .or_else(|| name.strip_prefix("ENV:"))
        .unwrap_or(&name);
    lookup_variable(name, ctx)
}

/// After a `%`: `USERPROFILE%` (cmd.exe style).
fn expand_percent(
    chars: &mut std::iter::Peekable<std::str::Chars<'_>>,
    ctx: &CommandContext,
) -> Option<String> {
    let mut name = String::new();
    loop {
        match chars.next()? {
            '%' => break,
            c if c.is_ascii_alphanumeric() || c == '_' => name.push(c),
            _ => return None,
        }
    }
    lookup_variable(&name, ctx)
}

fn lookup_variable(name: &str, ctx: &CommandContext) -> Option<String> {
    let is = |n: &str| {
        if ctx.os.is_windows() {
            name.eq_ignore_ascii_case(n)
        } else {
            name == n
        }
    };
    if is("HOME") || is("USERPROFILE") {
        Some(ctx.home.to_string_lossy().into_owned())
    } else if is("CLAUDE_CONFIG_DIR") {
        ctx.claude_config_dir
            .as_ref()
            .map(|p| p.to_string_lossy().into_owned())
    } else {
        None
    }
}

#[cfg(test)]
mod tests;
