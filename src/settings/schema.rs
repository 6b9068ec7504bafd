//! The settings other than `hooks` that the pinned client (2.1.332) checks
//! when it loads a file, as measured on it shape by shape (the shapes and
//! the client's verdicts: tests/fixtures/settings-shapes/). A known key of
//! the wrong type makes it skip the whole file; a few keys it drops alone.
//! Keys it does not know, and keys it knows but does not check (`theme`,
//! `effortLevel`, `mcpServers`, …), load whatever they hold, so they are
//! not listed. Only what was measured is here: a key missing from the
//! table is one gk says nothing about, never one it guesses at.

use jsonc_parser::ast::{Object, Value};
use jsonc_parser::common::Ranged;

use super::{last_prop, IssueKind, Issues};

/// What the client accepts for one key.
#[derive(Debug, Clone, Copy)]
enum Want {
    Str,
    Bool,
    Num,
    /// A JSON object with a schema of its own (checked further for
    /// `permissions` and `statusLine`).
    Obj,
    /// A JSON object of any keys ("record").
    Record,
    Arr,
    /// A string, one of these.
    OneOf(&'static [&'static str]),
    /// `true`, `false` or an object (`attribution`).
    BoolOrObj,
}

use Want::*;

/// Known keys whose wrong type voids the file (measured: each with a value
/// of another type, `null` included).
const VOIDING: &[(&str, Want)] = &[
    ("$schema", Str),
    ("model", Str),
    ("advisorModel", Str),
    ("outputStyle", Str),
    ("language", Str),
    ("awsAuthRefresh", Str),
    ("apiKeyHelper", Str),
    ("minimumVersion", Str),
    ("autoMemoryDirectory", Str),
    ("alwaysThinkingEnabled", Bool),
    ("enableAllProjectMcpServers", Bool),
    ("skipWorkflowUsageWarning", Bool),
    ("autoCompactEnabled", Bool),
    ("voiceEnabled", Bool),
    ("inputNeededNotifEnabled", Bool),
    ("agentPushNotifEnabled", Bool),
    ("autoMemoryEnabled", Bool),
    ("verbose", Bool),
    ("switchModelsOnFlag", Bool),
    ("skipAutoPermissionPrompt", Bool),
    ("useAutoModeDuringPlan", Bool),
    ("includeCoAuthoredBy", Bool),
    ("skipDangerousModePermissionPrompt", Bool),
    ("skipWebFetchPreflight", Bool),
    ("enableWorkflows", Bool),
    ("syntaxHighlightingDisabled", Bool),
    ("spinnerTipsEnabled", Bool),
    ("showThinkingSummaries", Bool),
    ("autoScrollEnabled", Bool),
    ("terminalProgressBarEnabled", Bool),
    ("remoteControlAtStartup", Bool),
    ("workflowKeywordTriggerEnabled", Bool),
    ("showClearContextOnPlanAccept", Bool),
    ("prefersReducedMotion", Bool),
    ("awaySummaryEnabled", Bool),
    ("respondToBashCommands", Bool),
    ("respectGitignore", Bool),
    ("includeGitInstructions", Bool),
    ("autoDreamEnabled", Bool),
    ("fastMode", Bool),
    ("disableClaudeAiConnectors", Bool),
    ("disableBundledSkills", Bool),
    ("disableRemoteControl", Bool),
    ("disableWorkflows", Bool),
    ("disableArtifact", Bool),
    ("promptSuggestionEnabled", Bool),
    ("channelsEnabled", Bool),
    ("fileCheckpointingEnabled", Bool),
    ("showTurnDuration", Bool),
    ("disableAllHooks", Bool),
    ("allowManagedHooksOnly", Bool),
    ("cleanupPeriodDays", Num),
    ("feedbackSurveyRate", Num),
    ("skillListingBudgetFraction", Num),
    ("permissions", Obj),
    ("statusLine", Obj),
    ("voice", Obj),
    ("sandbox", Obj),
    ("fileSuggestion", Obj),
    ("autoMode", Obj),
    ("worktree", Obj),
    ("env", Record),
    ("enabledPlugins", Record),
    ("skillOverrides", Record),
    ("modelOverrides", Record),
    ("pluginConfigs", Record),
    ("enabledMcpjsonServers", Arr),
    ("disabledMcpjsonServers", Arr),
    ("companyAnnouncements", Arr),
    ("allowedChannelPlugins", Arr),
    ("tui", OneOf(&["default", "fullscreen"])),
    ("autoUpdatesChannel", OneOf(&["latest", "stable", "rc"])),
    ("attribution", BoolOrObj),
];

/// Known keys the client ignores alone when they are malformed.
const IGNORED: &[(&str, Want)] = &[
    ("extraKnownMarketplaces", Record),
    ("deniedMcpServers", Arr),
    (
        "teammateMode",
        OneOf(&["auto", "tmux", "iterm2", "in-process"]),
    ),
];

const DEFAULT_MODES: &[&str] = &[
    "acceptEdits",
    "auto",
    "bypassPermissions",
    "default",
    "dontAsk",
    "plan",
];

fn kind_name(v: &Value) -> &'static str {
    match v {
        Value::StringLit(_) => "a string",
        Value::NumberLit(_) => "a number",
        Value::BooleanLit(_) => "a boolean",
        Value::NullKeyword(_) => "null",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn accepts(want: Want, v: &Value) -> bool {
    match (want, v) {
        (Str, Value::StringLit(_))
        | (Bool, Value::BooleanLit(_))
        | (Num, Value::NumberLit(_))
        | (Obj | Record | BoolOrObj, Value::Object(_))
        | (BoolOrObj, Value::BooleanLit(_))
        | (Arr, Value::Array(_)) => true,
        (OneOf(list), Value::StringLit(s)) => list.contains(&s.value.as_ref()),
        _ => false,
    }
}

fn wanted(want: Want) -> String {
    match want {
        Str => "a string".into(),
        Bool => "true or false".into(),
        Num => "a number".into(),
        Obj | Record => "an object".into(),
        Arr => "an array".into(),
        BoolOrObj => "true, false or an object".into(),
        OneOf(list) => format!(
            "one of {}",
            list.iter()
                .map(|s| format!("\"{s}\""))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

/// Check one value against `want`; `Some(reason)` when it does not fit.
fn misfit(at: &str, want: Want, v: &Value) -> Option<String> {
    (!accepts(want, v)).then(|| {
        let got = match v {
            Value::StringLit(s) if matches!(want, OneOf(_)) => {
                format!("\"{}\"", crate::text::one_line(&s.value, 40))
            }
            _ => kind_name(v).to_string(),
        };
        format!("`{at}` must be {}, not {got}", wanted(want))
    })
}

/// Every top-level setting of `root` the client checks, as issues: the
/// last copy of each key (the one the client reads).
pub(super) fn check_top(root: &Object<'_>, issues: &mut Issues<'_>) {
    issues.event = None;
    // One pass over the root's keys (the last copy of each wins, as in
    // `JSON.parse`), then one look-up per known key: linear in the file.
    let last: std::collections::HashMap<&str, &Value<'_>> = root
        .properties
        .iter()
        .map(|p| (p.name.as_str(), &p.value))
        .collect();
    for (key, want) in VOIDING.iter().chain(IGNORED) {
        let Some(&v) = last.get(key) else {
            continue;
        };
        let kind = if IGNORED.iter().any(|(k, _)| k == key) {
            IssueKind::FieldIgnored
        } else {
            IssueKind::KeyType
        };
        if let Some(reason) = misfit(key, *want, v) {
            issues.add(key.to_string(), v.start(), &reason, kind);
            continue;
        }
        match (*key, v) {
            ("permissions", Value::Object(o)) => permissions(o, issues),
            ("statusLine", Value::Object(o)) => status_line(o, v.start(), issues),
            ("enabledPlugins", Value::Object(o)) => enabled_plugins(o, issues),
            _ => {}
        }
    }
}

/// A list of strings under `permissions`: not an array voids the file; an
/// element that is not a string costs `element` (measured: a rule is
/// removed from `allow`/`deny`/`ask`, the rest stays; a folder of
/// `additionalDirectories` voids the file). One issue per list.
fn string_list(o: &Object<'_>, key: &str, what: &str, element: IssueKind, issues: &mut Issues<'_>) {
    let at = format!("permissions.{key}");
    match last_prop(o, key) {
        None => {}
        Some(Value::Array(a)) => {
            if let Some(bad) = a
                .elements
                .iter()
                .find(|e| !matches!(e, Value::StringLit(_)))
            {
                let reason = format!(
                    "`{at}` holds {} where {what} must be a string",
                    kind_name(bad)
                );
                issues.add(at, bad.start(), &reason, element);
            }
        }
        Some(v) => {
            let reason = misfit(&at, Arr, v).unwrap_or_default();
            issues.add(at, v.start(), &reason, IssueKind::KeyType);
        }
    }
}

fn permissions(o: &Object<'_>, issues: &mut Issues<'_>) {
    for list in ["allow", "deny", "ask"] {
        string_list(o, list, "a rule", IssueKind::FieldIgnored, issues);
    }
    string_list(
        o,
        "additionalDirectories",
        "a folder",
        IssueKind::KeyType,
        issues,
    );
    for (key, want) in [
        ("defaultMode", OneOf(DEFAULT_MODES)),
        ("disableBypassPermissionsMode", OneOf(&["disable"])),
    ] {
        let at = format!("permissions.{key}");
        if let Some(v) = last_prop(o, key) {
            if let Some(reason) = misfit(&at, want, v) {
                issues.add(at, v.start(), &reason, IssueKind::KeyType);
            }
        }
    }
}

fn status_line(o: &Object<'_>, start: usize, issues: &mut Issues<'_>) {
    let mut need = |key: &str, want: Want, required: bool| {
        let at = format!("statusLine.{key}");
        match last_prop(o, key) {
            Some(v) => {
                if let Some(reason) = misfit(&at, want, v) {
                    issues.add(at, v.start(), &reason, IssueKind::KeyType);
                }
            }
            None if required => issues.add(
                at.clone(),
                start,
                &format!("`{at}` is missing; it must be {}", wanted(want)),
                IssueKind::KeyType,
            ),
            None => {}
        }
    };
    need("type", OneOf(&["command"]), true);
    need("command", Str, true);
    need("padding", Num, false);
}

fn enabled_plugins(o: &Object<'_>, issues: &mut Issues<'_>) {
    // Measured: `true`, `false` and an array load; a string voids the file.
    let bad = o
        .properties
        .iter()
        .find(|p| !matches!(p.value, Value::BooleanLit(_) | Value::Array(_)));
    if let Some(p) = bad {
        let name = crate::text::one_line(p.name.as_str(), 80);
        issues.add(
            format!("enabledPlugins.{name}"),
            p.value.start(),
            &format!(
                "`enabledPlugins.{name}` must be true or false, not {}",
                kind_name(&p.value)
            ),
            IssueKind::KeyType,
        );
    }
}
