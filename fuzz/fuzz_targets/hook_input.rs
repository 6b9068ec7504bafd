//! The hooks (`hooks::respond_prompt`, `respond_stop`, `respond_switch`)
//! on any stdin.
//!
//! Input: a selector byte (which hook, whether the bytes are the whole
//! stdin or only the prompt of a real event), then the bytes. Whatever
//! arrives, a hook prints nothing or one line of ASCII JSON, an object of
//! the shape its event expects (the switch hooks too: bits 3-4 of the
//! selector pick them); the same input gives the same output; and
//! nothing from the event but the prompt's keywords reaches the output:
//! a secret in another field of the event (a token in `cwd`, say) never
//! does.
#![no_main]

use std::time::{Duration, SystemTime};

use gk::testing::hookcmd::HookKind as Hook;
use gk::testing::hooks::{
    respond_prompt, respond_stop, respond_switch, Config, Current, Input, Located, StateFile,
    StateRead,
};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

const SECRET: &str = "sk-fuzz-SECRET-7f3a";

fuzz_target!(|data: &[u8]| {
    let Some((&sel, bytes)) = data.split_first() else {
        return;
    };
    let hook = match ((sel >> 3) & 3, sel & 1) {
        (2, _) => Hook::PreSwitch,
        (3, _) => Hook::PostSwitch,
        (_, 0) => Hook::Prompt,
        _ => Hook::Stop,
    };
    let bytes: Vec<u8> = if sel & 2 == 0 {
        bytes.to_vec()
    } else {
        let prompt = String::from_utf8_lossy(bytes);
        serde_json::json!({
            "session_id": "s",
            "cwd": format!("/home/u/{SECRET}"),
            "transcript_path": SECRET,
            "hook_event_name": "UserPromptSubmit",
            "prompt": prompt,
        })
        .to_string()
        .into_bytes()
    };
    let input = Input {
        bytes,
        complete: true,
    };
    let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_800_000_000);
    let state = |_: Option<&Value>| {
        let mut map = serde_json::Map::new();
        map.insert(
            "status".into(),
            Value::from(if sel & 4 == 0 { "clean" } else { "in_progress" }),
        );
        map.insert("task".into(), Value::from("fuzzing"));
        Located {
            file: StateFile {
                read: StateRead::Object(map),
                mtime: Some(now - Duration::from_secs(60)),
            },
            record: None,
            from_shared: false,
            pointer: None,
            earlier: None,
        }
    };
    // What the transcript said (the fuzzer picks): unknown, or the tier
    // and effort a prompt may be advised.
    let current = |_: &Value| {
        if sel & 8 == 0 {
            Current::default()
        } else {
            Current {
                model: Some("claude-opus-5-5".into()),
                effort: Some("high".into()),
            }
        }
    };
    let config = Config::default();
    let respond = || match hook {
        Hook::Prompt => respond_prompt(&input, &config, None, state, current, now),
        Hook::Stop => respond_stop(&input, &config, None, state, now),
        Hook::PreSwitch | Hook::PostSwitch => {
            respond_switch(hook == Hook::PreSwitch, &input, &config, state, now)
        }
        // Reads settings files, not this state: fuzz_targets/session_check.rs.
        Hook::Session => unreachable!("the session check is fuzzed on its own"),
    };
    let out = respond();
    assert_eq!(out, respond(), "not deterministic");
    let Some(out) = out else {
        assert_ne!(hook, Hook::Stop, "the Stop hook always answers");
        return;
    };
    assert!(out.is_ascii(), "{out:?}");
    assert!(
        out.ends_with('\n') && out.matches('\n').count() == 1,
        "{out:?}"
    );
    let v: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out:?}"));
    let obj = v.as_object().expect("an object");
    match hook {
        // Per session (the default config) the user gets a line only when
        // there is something to say, and Claude's context opens with the
        // task-state convention; the gatekeeper's state is always in it.
        Hook::Prompt => {
            if let Some(m) = obj.get("systemMessage") {
                assert!(m.as_str().unwrap().starts_with("GATEKEEPER"), "{out}");
            }
            let hso = obj["hookSpecificOutput"].as_object().unwrap();
            assert_eq!(hso["hookEventName"], "UserPromptSubmit");
            assert!(
                hso["additionalContext"]
                    .as_str()
                    .unwrap()
                    .contains("[Gatekeeper] State:"),
                "{out}"
            );
        }
        Hook::Stop => {
            assert_eq!(obj.len(), 1, "{out}");
            assert!(obj["systemMessage"]
                .as_str()
                .unwrap()
                .starts_with("STATE ["));
        }
        // The guard: `ask` (the event's source may be `command`), or context.
        Hook::PreSwitch => {
            let hso = obj["hookSpecificOutput"].as_object().unwrap();
            assert_eq!(hso["hookEventName"], "PreModelSwitch");
            assert_eq!(hso["permissionDecision"], "ask");
            assert!(hso["permissionDecisionReason"]
                .as_str()
                .unwrap()
                .starts_with("gk: "));
        }
        Hook::PostSwitch => {
            let hso = obj["hookSpecificOutput"].as_object().unwrap();
            assert_eq!(hso["hookEventName"], "PostModelSwitch");
            assert!(hso["additionalContext"]
                .as_str()
                .unwrap()
                .starts_with("[Gatekeeper] The model changed"));
        }
        // Reads settings files, not this state: fuzz_targets/session_check.rs.
        Hook::Session => unreachable!("respond() answers only the prompt and Stop hooks"),
    }
    if sel & 2 != 0 {
        assert!(
            !out.contains(SECRET),
            "an event field reached the output: {out}"
        );
    }
});
