//! `gk rules` and `gk explain`: the hooks' configuration as the user sees
//! it, printed, and one prompt walked through the rules. Not the hot path:
//! both only read, through the same functions the hooks use.

use std::io::Write as _;

use crate::hooks::{config, Config};
use crate::paths::ClaudePaths;

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
pub fn print_rules(preset: Option<crate::cli::Preset>) -> crate::error::Result<u8> {
    let mut config = effective_config();
    if let Some(preset) = preset {
        super::presets::apply(&mut config, preset);
    }
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
    print_out(&format!("{}\n", crate::hooks::jsonout::ascii_only(&text)))?;
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
    let a = crate::hooks::analyse(prompt_text, config);
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
