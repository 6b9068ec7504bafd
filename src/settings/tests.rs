use super::*;

fn p() -> &'static Path {
    Path::new("/h/.claude/settings.json")
}

#[test]
fn comments_and_trailing_commas_are_refused_with_place() {
    let e = parse(p(), "{\n  // note\n  \"a\": 1\n}").unwrap_err();
    assert_eq!((e.line, e.column > 0), (2, true));
    assert!(
        e.to_string().starts_with("/h/.claude/settings.json:2:"),
        "{e}"
    );
    // A trailing comma is placed at the comma, not at the bracket after it.
    let e = parse(p(), "{\n  \"a\": 1,\n}\n").unwrap_err();
    assert_eq!((e.line, e.column), (2, 9));
    let e = parse(p(), "{\"a\": [1,  ]}").unwrap_err();
    assert_eq!((e.line, e.column), (1, 9));
    let e = parse(p(), "{\"a\": [1, 2").unwrap_err();
    assert_eq!(e.line, 1);
}

#[test]
fn root_must_be_an_object_and_empty_is_an_error() {
    let e = parse(p(), "\n  [1]").unwrap_err();
    assert_eq!((e.line, e.column), (2, 3));
    assert!(e.reason.contains("object"));
    assert!(parse(p(), "  \n").unwrap_err().reason.contains("empty"));
}

/// Measured on client 2.1.332 (docs/maintainers/claude-code-facts.md):
/// a settings file holding any of these loads, its hooks fire and its
/// `env` applies. gk reads them too, at the same places.
#[test]
fn json_the_client_accepts_is_read_not_refused() {
    let deep = format!("{}1{}", "[".repeat(5_000), "]".repeat(5_000));
    let cases = [
        ("1e400".to_string(), "1e308"),
        ("1.5e400".to_string(), "1e308  "),
        ("-1e4000".to_string(), "-1e308 "),
        (r#""\ud83d""#.to_string(), r#""\ufffd""#),
        (
            r#""a\udc00\ud83d\ude00""#.to_string(),
            r#""a\ufffd\ud83d\ude00""#,
        ),
        (r#""\\ud83d""#.to_string(), r#""\\ud83d""#),
        (deep.clone(), ""),
    ];
    for (x, _) in &cases {
        let text = format!(
            "{{\"x\": {x},\n \"env\": {{\"A\": \"1\"}},\n \"hooks\": {{\"Stop\": [{{\"hooks\": [{{\"type\": \"command\", \"command\": \"gk hook stop\", \"timeout\": 1e999}}]}}]}}}}"
        );
        let s = parse(p(), &text).unwrap_or_else(|e| panic!("{}: {e}", &x[..x.len().min(20)]));
        assert_eq!(s.value["env"]["A"], "1");
        let (entries, issues) = hook_entries(&s);
        assert!(issues.is_empty(), "{issues:?}");
        assert_eq!(entries.len(), 1);
        assert_eq!(entries[0].line, 3, "placed in the file as it is");
        assert!(
            entries[0].timeout.is_some_and(|t| t >= 1e308),
            "a timeout past any wait"
        );
    }
    for (x, read) in &cases[..6] {
        let r = as_the_client_reads(x);
        assert_eq!(r.len(), x.len());
        assert_eq!(&*r, *read);
    }
    // Every file gk writes is passed through as it is.
    assert!(matches!(
        as_the_client_reads(r#"{"a": [1.5e3, "\ud83d\ude00 \\u"]}"#),
        std::borrow::Cow::Borrowed(_)
    ));
    // A deep value keeps its line breaks, so later places stay right.
    let text = format!(
        "{{\"x\": {}\n{},\n\"hooks\": 1}}",
        "[".repeat(100),
        "]".repeat(100)
    );
    let s = parse(p(), &text).unwrap();
    let (_, issues) = hook_entries(&s);
    assert_eq!((issues[0].line, issues[0].column), (3, 10), "{issues:?}");
    // Still refused: what the client refuses too.
    for bad in [r#"{"x": 1,}"#, r#"{"x": "\ud83d"#, r#"{"x": [[[["#] {
        assert!(parse(p(), bad).is_err(), "{bad}");
    }
}

#[test]
fn bom_is_accepted_and_flagged() {
    let s = parse(p(), "\u{feff}{\"hooks\": {}}").unwrap();
    assert!(s.bom);
    assert!(s.text.starts_with('\u{feff}'));
    assert!(!parse(p(), "{}").unwrap().bom);
}

const SAMPLE: &str = r#"{
  "env": {"TOKEN": "x"},
  "hooks": {
"PreToolUse": [
  {"matcher": "Bash", "hooks": [{"type": "command", "command": "lint.sh", "timeout": 7}]}
],
"UserPromptSubmit": [
  {"hooks": [
    {"type": "command", "command": "\"$HOME/.claude/hooks/gk\" hook prompt"},
    {"type": "command", "command": "~/.claude/hooks/gk hook prompt"}
  ]}
]
  }
}"#;

#[test]
fn entries_come_in_file_order_with_lines() {
    let s = parse(p(), SAMPLE).unwrap();
    let (entries, issues) = hook_entries(&s);
    assert!(issues.is_empty(), "{issues:?}");
    assert_eq!(entries.len(), 3);
    assert_eq!(entries[0].event, "PreToolUse");
    assert_eq!(entries[0].matcher, Some(Value::String("Bash".into())));
    assert_eq!(entries[0].timeout, Some(7.0));
    assert_eq!(entries[0].line, 5);
    assert_eq!(
        entries[1].command.as_deref(),
        Some("\"$HOME/.claude/hooks/gk\" hook prompt")
    );
    assert_eq!(
        (entries[2].group, entries[2].index, entries[2].line),
        (0, 1, 10)
    );
}

#[test]
fn lines_count_from_the_real_file_start_with_bom_and_crlf() {
    let text = "\u{feff}{\r\n\"hooks\": {\"Stop\": [\r\n{\"hooks\": [{\"type\": \"command\", \"command\": \"x\"}]}]}}";
    let s = parse(p(), text).unwrap();
    let (entries, _) = hook_entries(&s);
    assert_eq!(entries[0].line, 3);
}

#[test]
fn schema_issues_are_found_and_placed() {
    let text = r#"{"hooks": {
  "Stop": {"hooks": []},
  "UserPromptSubmit": [{"matcher": ["a"], "hooks": [{"command": "x"}, {"type": "command"}, 5]}],
  "NotAnEvent": []
}}"#;
    let s = parse(p(), text).unwrap();
    let (_, issues) = hook_entries(&s);
    let ats: Vec<(&str, bool, usize)> = issues
        .iter()
        .map(|i| (i.at.as_str(), i.rejects_file(), i.line))
        .collect();
    assert_eq!(
        ats,
        vec![
            ("hooks.Stop", false, 2),
            // Measured on 2.1.332: outside PreToolUse and PermissionRequest
            // a non-string matcher drops its group, not the file.
            ("hooks.UserPromptSubmit[0].matcher", false, 3),
            ("hooks.UserPromptSubmit[0].hooks[0]", false, 3),
            ("hooks.UserPromptSubmit[0].hooks[1]", false, 3),
            ("hooks.UserPromptSubmit[0].hooks[2]", false, 3),
            ("hooks.NotAnEvent", false, 4),
        ]
    );
    let s = parse(p(), r#"{"hooks": []}"#).unwrap();
    let (_, issues) = hook_entries(&s);
    assert_eq!(issues[0].at, "hooks");
}

#[test]
fn exec_form_args_are_read_and_checked() {
    let text = r#"{"hooks": {"Stop": [{"hooks": [
  {"type": "command", "command": "/x/gk", "args": ["hook", "stop"]},
  {"type": "command", "command": "/x/gk", "args": ["hook", 5]}
]}]}}"#;
    let s = parse(p(), text).unwrap();
    let (entries, issues) = hook_entries(&s);
    assert_eq!(
        entries[0].args,
        Some(vec!["hook".to_string(), "stop".to_string()])
    );
    assert_eq!(
        entries[0].run_command().as_deref(),
        Some("'/x/gk' 'hook' 'stop'")
    );
    assert_eq!(entries[1].args, None);
    assert_eq!(issues.len(), 1);
    assert_eq!(issues[0].at, "hooks.Stop[0].hooks[1].args");
}

#[test]
fn the_line_index_agrees_with_line_col_everywhere() {
    let mut text = String::from("\u{feff}{\r\n  \"é\": \"ü😀\",\n");
    text.push_str(&"x".repeat(3000));
    text.push_str("\n\n\"z\"é\n");
    text.push_str(&"é".repeat(700));
    let index = LineIndex::new(&text);
    for offset in (0..=text.len() + 2).filter(|o| *o > text.len() || text.is_char_boundary(*o)) {
        assert_eq!(index.line_col(offset), line_col(&text, offset), "{offset}");
    }
}

#[test]
fn duplicate_keys_last_wins_like_json_parse() {
    let text =
        r#"{"hooks": {"Stop": 5, "Stop": [{"hooks": [{"type": "command", "command": "b"}]}]}}"#;
    let s = parse(p(), text).unwrap();
    let (entries, issues) = hook_entries(&s);
    assert_eq!(entries[0].command.as_deref(), Some("b"));
    // Reported, though: install refuses such a file, doctor says why.
    assert_eq!(issues.len(), 1);
    assert!(issues[0].is_duplicate_key() && !issues[0].rejects_file());
    assert_eq!(
        (issues[0].at.as_str(), issues[0].column),
        ("hooks.Stop", 23)
    );
}

#[test]
fn a_key_twice_is_reported_at_every_level() {
    let text = "{\n  \"env\": {\"A\": \"1\"},\n  \"env\": {\"B\": \"2\"},\n  \"hooks\": {\"Stop\": [{\"matcher\": \"\", \"matcher\": \"x\", \"hooks\": [{\"type\": \"command\", \"command\": \"a\", \"type\": \"command\"}]}]}\n}";
    let s = parse(p(), text).unwrap();
    let (_, issues) = hook_entries(&s);
    let ats: Vec<(&str, usize, usize)> = issues
        .iter()
        .map(|i| (i.at.as_str(), i.line, i.column))
        .collect();
    assert_eq!(
        ats,
        [
            ("env", 3, 3),
            ("hooks.Stop[0].matcher", 4, 38),
            ("hooks.Stop[0].hooks[0].type", 4, 100),
        ]
    );
    assert!(issues.iter().all(|i| i.is_duplicate_key()));
    assert_eq!(
        issues[0].reason,
        "`env` appears twice; Claude Code reads the last one"
    );
}
