//! `gk enable|disable prompt|stop`: one key in gk's own config file,
//! `<claude dir>/hooks/gk.json` — `"prompt": {"enabled": false}`. The hook
//! stays registered in settings.json (Claude Code still starts it, it just
//! prints nothing), so switching needs no settings edit. An absent file or
//! key means enabled. The rest of the file is kept byte for byte.

use std::path::Path;

use jsonc_parser::ast::{Object, Value};

use crate::edit::splice::{
    append_property, apply_edits, at, cut_items, parse_strict, prop_range, range_of_obj, split_bom,
    J,
};
use crate::error::Result;
use crate::hookcmd::HookKind;

/// Is `kind` switched on according to gk.json's text (`None`: no file)?
/// A file that does not parse counts as "on" here; editing it is refused.
pub fn is_enabled(text: Option<&str>, kind: HookKind) -> bool {
    let Some(text) = text else { return true };
    let (_, body) = split_bom(text);
    serde_json::from_str::<serde_json::Value>(body)
        .ok()
        .and_then(|v| v.get(kind.spec().config_key)?.get("enabled")?.as_bool())
        .unwrap_or(true)
}

/// Set `"<kind>": {"enabled": <enabled>}` in gk.json's text (`None`: no
/// file yet). Returns the text unchanged when it already says so, or when
/// there is no file and the hook is being enabled (absent means on).
pub fn set_enabled(
    path: &Path,
    text: Option<&str>,
    kind: HookKind,
    enabled: bool,
) -> Result<Option<String>> {
    let key = kind.spec().config_key;
    let value = if enabled { "true" } else { "false" };
    let text = match text {
        Some(t) if !split_bom(t).1.trim().is_empty() => t,
        other => {
            if enabled {
                return Ok(other.map(str::to_string));
            }
            let (bom, _) = split_bom(other.unwrap_or(""));
            return Ok(Some(format!("{bom}{}", made_by_disable(key))));
        }
    };
    let (bom, body) = split_bom(text);
    let root = parse_strict(path, body)?;
    // A switch repeated, this one or another: which one counts is not
    // plain, and the hooks ignore the whole file for it.
    for name in HookKind::ALL.iter().map(|k| k.spec().config_key) {
        refuse_repeated(path, body, &root, name, "")?;
    }
    let Some(prop) = root.get(key) else {
        if enabled {
            return Ok(Some(text.to_string()));
        }
        let flag = J::Obj(vec![("enabled".into(), J::Raw(value.into()))]);
        let edit = append_property(body, &root, key, &flag);
        return Ok(Some(format!("{bom}{edit}")));
    };
    let Value::Object(obj) = &prop.value else {
        return Err(at(
            path,
            body,
            prop.range.start,
            &format!("`{key}` must be an object"),
        ));
    };
    refuse_repeated(path, body, obj, "enabled", &format!("{key}."))?;
    match obj.get("enabled") {
        Some(flag) => match &flag.value {
            Value::BooleanLit(b) if b.value == enabled => Ok(Some(text.to_string())),
            // Absent means on: the `false` goes rather than turning into a
            // `true` nobody asked for; so does the file disable made.
            Value::BooleanLit(_) if enabled && body == made_by_disable(key) => Ok(None),
            Value::BooleanLit(_) if enabled => {
                let (cut_from, items, remove): (_, Vec<_>, Vec<_>) = if obj.properties.len() == 1 {
                    let items = root.properties.iter().map(prop_range).collect();
                    let remove = root.properties.iter().map(|p| p.name.as_str() == key);
                    (range_of_obj(&root), items, remove.collect())
                } else {
                    let items = obj.properties.iter().map(prop_range).collect();
                    let remove = obj.properties.iter().map(|p| p.name.as_str() == "enabled");
                    (range_of_obj(obj), items, remove.collect())
                };
                let edits = cut_items(cut_from, &items, &remove, "");
                Ok(Some(format!("{bom}{}", apply_edits(body, edits))))
            }
            Value::BooleanLit(b) => {
                let mut out = body.to_string();
                out.replace_range(b.range.start..b.range.end, value);
                Ok(Some(format!("{bom}{out}")))
            }
            _ => Err(at(
                path,
                body,
                flag.range.start,
                &format!("`{key}.enabled` must be true or false"),
            )),
        },
        None if enabled => Ok(Some(text.to_string())),
        None => {
            let edit = append_property(body, obj, "enabled", &J::Raw(value.into()));
            Ok(Some(format!("{bom}{edit}")))
        }
    }
}

/// The whole gk.json `gk disable <key>` writes when there is none.
fn made_by_disable(key: &str) -> String {
    format!("{{\n  \"{key}\": {{\n    \"enabled\": false\n  }}\n}}\n")
}

/// The hooks read the last of repeated keys and this edit would change the
/// first: refuse instead of reporting a switch that does not take effect.
fn refuse_repeated(path: &Path, body: &str, obj: &Object, name: &str, prefix: &str) -> Result<()> {
    match obj
        .properties
        .iter()
        .filter(|p| p.name.as_str() == name)
        .nth(1)
    {
        Some(second) => Err(at(
            path,
            body,
            second.range.start,
            &format!("`{prefix}{name}` appears twice"),
        )),
        None => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p() -> &'static Path {
        Path::new("/c/hooks/gk.json")
    }

    #[test]
    fn disabling_without_a_file_creates_it_enabling_does_not() {
        let t = set_enabled(p(), None, HookKind::Prompt, false)
            .unwrap()
            .unwrap();
        assert_eq!(t, "{\n  \"prompt\": {\n    \"enabled\": false\n  }\n}\n");
        assert!(!is_enabled(Some(&t), HookKind::Prompt));
        assert!(is_enabled(Some(&t), HookKind::Stop));
        assert_eq!(
            set_enabled(p(), None, HookKind::Prompt, true).unwrap(),
            None
        );
    }

    #[test]
    fn other_keys_are_kept_byte_for_byte() {
        let t =
            "{\n\t\"rules\": [1.50, \"\\u00e9\"],\n\t\"stop\": {\"enabled\": true, \"x\": 1}\n}";
        let off = set_enabled(p(), Some(t), HookKind::Stop, false)
            .unwrap()
            .unwrap();
        assert_eq!(off, t.replace("\"enabled\": true", "\"enabled\": false"));
        // Enabling takes the `false` out (absent means on), the rest stays.
        let on = set_enabled(p(), Some(&off), HookKind::Stop, true)
            .unwrap()
            .unwrap();
        assert_eq!(on, t.replace("\"enabled\": true, ", ""));
        assert!(is_enabled(Some(&on), HookKind::Stop));
        let prompt_off = set_enabled(p(), Some(t), HookKind::Prompt, false)
            .unwrap()
            .unwrap();
        assert!(prompt_off.starts_with("{\n\t\"rules\": [1.50, \"\\u00e9\"],\n\t\"stop\": {\"enabled\": true, \"x\": 1},\n\t\"prompt\": "), "{prompt_off}");
        assert!(!is_enabled(Some(&prompt_off), HookKind::Prompt));
    }

    #[test]
    fn malformed_file_is_refused_with_its_place() {
        let err = set_enabled(
            p(),
            Some("{\n  \"prompt\": true,\n}"),
            HookKind::Prompt,
            false,
        )
        .unwrap_err();
        assert!(err.message().starts_with("/c/hooks/gk.json:"), "{err}");
        let err =
            set_enabled(p(), Some("{\"prompt\": true}"), HookKind::Prompt, false).unwrap_err();
        assert!(
            err.message().contains("`prompt` must be an object"),
            "{err}"
        );
    }

    #[test]
    fn a_repeated_key_is_refused_rather_than_edited_in_the_wrong_place() {
        // The hooks read the last of repeated keys; editing the first one
        // would report success and change nothing they see.
        for (text, kind, enable, needle) in [
            (
                "{\"prompt\": {\"enabled\": true},\n \"prompt\": {\"enabled\": false}}",
                HookKind::Prompt,
                true,
                ":2:2: `prompt` appears twice",
            ),
            (
                "{\"stop\": {\"enabled\": false, \"enabled\": true}}",
                HookKind::Stop,
                false,
                ":1:29: `stop.enabled` appears twice",
            ),
            // Another hook's switch repeated: the hooks ignore the file
            // (a repeated key voids it for them), so no edit is reported.
            (
                "{\"stop\": {\"enabled\": false}, \"stop\": {\"enabled\": true}}",
                HookKind::Prompt,
                false,
                ":1:30: `stop` appears twice",
            ),
        ] {
            let err = set_enabled(p(), Some(text), kind, enable).unwrap_err();
            assert!(err.message().contains(needle), "{text}: {err}");
        }
    }

    #[test]
    fn comments_are_refused_like_any_other_non_json() {
        // The hooks read gk.json as strict JSON and ignore a file with comments.
        let err = set_enabled(
            p(),
            Some("{\n  // off for now\n  \"stop\": {\"enabled\": true}\n}\n"),
            HookKind::Stop,
            false,
        )
        .unwrap_err();
        assert!(err.message().starts_with("/c/hooks/gk.json:2:3: "), "{err}");
    }
}
