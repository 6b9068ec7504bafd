//! What Claude Code will load and run for a project folder, as data, and
//! the rules that read it.
//!
//! # Why this is its own module
//!
//! Two commands ask the same questions of the same files. `gk doctor` asks
//! them when someone thinks to run it, and renders the answers as findings
//! with fixes. The SessionStart hook (`gk hook session`,
//! `crate::hooks::session`) asks a few of them at the start of every
//! session — are gk's hooks registered under two spellings, does a
//! settings file fail to parse, is the program a registration runs missing
//! — and prints one line per problem only when something is wrong. If the rules lived in `doctor/`, the hook would either drag in
//! doctor's rendering, fix planning and smoke runner, or keep a second copy
//! of the rules that would drift from the first. So the reading and the
//! rules are here, and doctor is one of their callers.
//!
//! # The shape
//!
//! 1. [`scopes`] finds and reads the files the client loads (user, project,
//!    local, managed and its drop-ins) into [`scopes::ScopeFile`]s: parsed,
//!    or why not. It is the only part that touches the file system.
//! 2. [`Table::new`] normalises every command handler of the files the client
//!    really uses into one row ([`Registration`]): scope, place, event, the
//!    command string as the client compares it, who owns it (gk, the Python
//!    hooks, someone else) and what it runs, and whether the scope's hooks
//!    run at all under `disableAllHooks` / `allowManagedHooksOnly`
//!    ([`Policy`]). It indexes the rows by gk hook once.
//! 3. [`rules`] has one function per finding code. Each reads the table (or
//!    the files) and returns plain data — which rows, which hook, which
//!    spellings — and no text: doctor turns that into messages and fixes,
//!    the session hook into one line.
//!
//! # What the hot path may rely on
//!
//! Nothing here starts a process, opens a connection, writes a file or
//! compiles a regex, and every rule is linear in the number of rows (the
//! rows are grouped with hash maps, never compared pairwise), so a
//! settings file with 10,000 hook entries is read in milliseconds. The one
//! rule that looks at the disk beyond the settings files, [`rules::programs`],
//! takes the lookup as a function, so a caller decides what it may cost.
//! Rendering (messages, the `--fix` hints, colour, `--json`) stays in
//! `doctor/`.

pub mod locate;
pub mod plugins;
pub mod rules;
pub mod scopes;
pub mod table;
