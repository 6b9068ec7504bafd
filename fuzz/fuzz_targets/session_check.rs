//! The session check (`hooks::session`) on any settings text.
//!
//! Input: a selector byte (which scope the text is loaded as, and whether
//! gk's healthy user settings sit beside it), then the text. Whatever the
//! text, the message is absent or a few lines, each `gk: … -- gk doctor…`,
//! with no control character and far under the client's 10,000
//! characters; the same input gives the same message; and no value of the
//! file's `env` (nor a secret planted in another tool's hook command)
//! reaches it.
#![no_main]

use std::path::{Path, PathBuf};

use gk::testing::hookcmd::CommandContext;
use gk::testing::hooks::Config;
use gk::testing::hooks::{message, problems, MAX_LINES};
use gk::testing::platform::Os;
use gk::testing::registry::{classify_text, Scope, ScopeFile};
use gk::testing::registry::{Plugins, Table};
use libfuzzer_sys::fuzz_target;

const SECRET: &str = "sk-fuzz-SESSION-7f3a";

const HEALTHY: &str = r#"{"env": {"TOKEN": "sk-fuzz-SESSION-7f3a"}, "hooks": {
  "UserPromptSubmit": [{"hooks": [{"type": "command", "command": "\"$HOME/.claude/hooks/gk\" hook prompt"}]}],
  "Stop": [{"hooks": [{"type": "command", "command": "\"$HOME/.claude/hooks/gk\" hook stop"}]}],
  "SessionStart": [{"hooks": [{"type": "command", "command": "\"$HOME/.claude/hooks/gk\" hook session"}]}],
  "PreToolUse": [{"hooks": [{"type": "command", "command": "guard --token sk-fuzz-SESSION-7f3a"}]}]
}}"#;

fn ctx() -> CommandContext {
    CommandContext::with_home(Os::Linux, "/home/u")
}

fn file(scope: Scope, path: &str, text: &str) -> ScopeFile {
    ScopeFile {
        scope,
        path: PathBuf::from(path),
        load: classify_text(Path::new(path), text),
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&sel, bytes)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(bytes);
    let (scope, path) = [
        (Scope::User, "/home/u/.claude/settings.json"),
        (Scope::Project, "/w/p/.claude/settings.json"),
        (Scope::Local, "/w/p/.claude/settings.local.json"),
        (Scope::Managed, "/etc/claude-code/managed-settings.json"),
    ][usize::from(sel & 3)];
    let mut files = Vec::new();
    if sel & 4 != 0 && scope != Scope::User {
        files.push(file(Scope::User, "/home/u/.claude/settings.json", HEALTHY));
    }
    files.push(file(scope, path, &text));
    let t = Table::new(&files, &ctx());
    let gone = sel & 8 != 0;
    let locate = |p: &str| (!gone).then(|| PathBuf::from(p));
    let run = || {
        let found = problems(
            &files,
            &Plugins::none(),
            &t,
            &locate,
            &Config::default(),
            None,
        );
        message(&found, Some(Path::new("/w/p")), Os::Linux)
    };
    let msg = run();
    assert_eq!(msg, run(), "not deterministic");
    let Some(msg) = msg else { return };
    let lines: Vec<&str> = msg.lines().collect();
    assert!(!lines.is_empty() && lines.len() <= MAX_LINES, "{msg}");
    assert!(
        msg.chars().count() < 4_000,
        "{} characters",
        msg.chars().count()
    );
    for line in &lines {
        assert!(line.starts_with("gk: "), "{line}");
        assert!(line.contains(" -- gk doctor"), "{line}");
        assert!(!line.chars().any(char::is_control), "{line:?}");
    }
    assert!(
        !msg.contains(SECRET),
        "a settings value reached the message: {msg}"
    );
});
