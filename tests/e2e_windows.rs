//! End-to-end on Windows, under Wine: the release gk.exe installed by itself
//! into a Windows profile and driven by the pinned client's Windows build
//! (claude.exe), offline against the loopback mock; and the Windows release
//! archive used as a user would. A Linux test that starts Wine (see
//! tests/e2e/wine.rs); docs/maintainers/testing.md says what each test proves.
//!
//! A test program of its own (`harness = false`, tests/e2e/harness.rs):
//! without the prefix, gk.exe, claude.exe or the archive `cargo test`
//! reports these tests as ignored with the reason; under CI (`CI=true`)
//! they run, and fail.

// This test crate is not gk: starting Wine, the client and gk is its job.
#![allow(clippy::disallowed_types, clippy::disallowed_methods)]

#[path = "e2e/harness.rs"]
#[allow(dead_code)]
#[macro_use]
mod harness;
#[path = "e2e/wine.rs"]
mod wine;

use std::fs;
use std::path::Path;

use serde_json::{json, Value};
use wine::WinSandbox;

fn main() -> std::process::ExitCode {
    let skip = if cfg!(gk_wine) {
        Some("Wine gap: this Linux test starts Wine itself".to_string())
    } else {
        wine::tools_missing()
    };
    harness::run(
        trials![
            windows_client_install_second_spellings_doctor_fix_and_uninstall,
            windows_release_archive_as_a_user_uses_it,
            windows_managed_install_runs_gk_for_every_user,
            windows_gk_plugin_runs_each_hook_once_with_no_hooks_in_settings,
            windows_gk_in_a_plugin_and_in_settings_runs_twice_until_doctor_fixes_it,
            windows_a_registry_policy_takes_the_managed_tier,
            windows_gk_exe_loads_no_library_of_the_shell_or_the_gui,
        ],
        skip,
    )
}

/// A user's settings before gk arrives: an `env` block with a credential.
const ENV_BLOCK: &str = "\"env\": {\r\n    \"GK_E2E_PROXY_TOKEN\": \"e2e-win-secret-7171\",\r\n    \"GK_E2E_FLAG\": \"1\"\r\n  }";
const SECRET: &str = "e2e-win-secret-7171";

/// The settings.json a Windows user may have: CRLF line ends and, when
/// Windows PowerShell 5.1 wrote it, a UTF-8 byte order mark (which doctor
/// warns about: some client versions rejected it).
fn settings_before(bom: bool) -> String {
    let bom = if bom { "\u{feff}" } else { "" };
    format!("{bom}{{\r\n  {ENV_BLOCK},\r\n  \"model\": \"opus\"\r\n}}\r\n")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn parse_settings(raw: &str) -> Value {
    let body = raw.strip_prefix('\u{feff}').unwrap_or(raw);
    serde_json::from_str(body).unwrap_or_else(|e| panic!("settings.json is not JSON ({e}):\n{raw}"))
}

/// The one handler registered for `event`: (command, args).
fn handler(settings: &Value, event: &str) -> (String, Vec<String>) {
    let handlers: Vec<&Value> = settings["hooks"][event]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|g| g["hooks"].as_array().into_iter().flatten())
        .collect();
    assert_eq!(handlers.len(), 1, "{event}: {handlers:?}");
    let h = handlers[0];
    let args = h["args"]
        .as_array()
        .unwrap_or_else(|| panic!("{event}: no exec-form args in {h}"))
        .iter()
        .map(|a| a.as_str().expect("string arg").to_string())
        .collect();
    (h["command"].as_str().expect("command").to_string(), args)
}

fn assert_no_secret(what: &str, out: &std::process::Output) {
    for stream in [&out.stdout, &out.stderr] {
        assert!(!text(stream).contains(SECRET), "{what} printed the secret");
    }
}

/// `gk.exe doctor --json --no-smoke`: exit code and finding codes. No
/// smoke runs: these scenarios ask what is registered where, and under Wine
/// a smoke run's time (`hook-slow`) follows the machine's load.
fn doctor_codes(sb: &WinSandbox) -> (Option<i32>, Vec<String>) {
    let project = sb.win(&sb.project());
    let out = sb.gk(&["doctor", "--json", "--no-smoke", "--project", &project]);
    assert_no_secret("doctor --json", &out);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "gk.exe doctor --json did not print JSON ({e}):\n{}\n{}",
            text(&out.stdout),
            text(&out.stderr)
        )
    });
    let codes = report["findings"]
        .as_array()
        .expect("findings")
        .iter()
        .map(|f| f["code"].as_str().expect("code").to_string())
        .collect();
    (out.status.code(), codes)
}

fn leftovers(dir: &Path) -> Vec<String> {
    fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.contains(".gk-old-"))
                .collect()
        })
        .unwrap_or_default()
}

fn windows_client_install_second_spellings_doctor_fix_and_uninstall() {
    let _serial = harness::serial();
    let tools = wine::tools("windows_client_install_…", true);
    let mut sb = WinSandbox::new(tools);
    let before = settings_before(false);
    fs::create_dir_all(sb.claude_dir()).unwrap();
    fs::write(sb.user_settings(), &before).unwrap();

    // Install from the download folder: the exec form, the absolute path.
    let out = sb.gk_ok(&["install", "--yes"]);
    assert_no_secret("install", &out);
    let stdout = text(&out.stdout);
    assert!(
        stdout.contains("smoke test: gk hook prompt passed"),
        "{stdout}"
    );
    assert!(
        stdout.contains("smoke test: gk hook stop   passed"),
        "{stdout}"
    );
    let raw = fs::read_to_string(sb.user_settings()).unwrap();
    assert!(raw.contains(ENV_BLOCK), "env block changed:\n{raw}");
    let exe = format!("{}\\hooks\\gk.exe", sb.win(&sb.claude_dir()));
    let settings = parse_settings(&raw);
    assert_eq!(
        handler(&settings, "UserPromptSubmit"),
        (exe.clone(), vec!["hook".into(), "prompt".into()])
    );
    assert_eq!(
        handler(&settings, "Stop"),
        (exe.clone(), vec!["hook".into(), "stop".into()])
    );
    assert_eq!(
        handler(&settings, "SessionStart"),
        (exe.clone(), vec!["hook".into(), "session".into()])
    );
    assert!(
        stdout.contains("smoke test: gk hook session passed"),
        "{stdout}"
    );

    // One turn: the context once, the Stop line shown, the session check
    // run once and silent (a healthy setup).
    let turn = sb.turn("implement the ontology");
    turn.assert_completed();
    let session = turn.hook_responses("SessionStart");
    assert_eq!(session.len(), 1, "{}", turn.describe_hooks());
    assert_eq!(session[0]["exit_code"], 0, "{}", session[0]);
    assert_eq!(session[0]["stdout"], "", "a healthy install says nothing");
    let context = turn.single_context();
    assert!(
        harness::gatekeeper_part(&context).starts_with("[Gatekeeper] State: clean"),
        "{context}"
    );
    assert!(context.contains("Opus 5.5"), "{context}");
    let stop = turn.system_messages("Stop");
    assert_eq!(stop.len(), 1, "{}", turn.describe_hooks());
    assert!(stop[0].starts_with("STATE [CLEAN]"), "{stop:?}");
    assert!(
        turn.notices()
            .iter()
            .any(|n| n.starts_with("Stop says: STATE [CLEAN]")),
        "{:?}",
        turn.notices()
    );

    // A second spelling of the same program beside gk's entry.
    let claude = sb.win(&sb.claude_dir());
    for (what, second) in [
        (
            "forward slashes",
            format!("{}/hooks/gk.exe", claude.replace('\\', "/")),
        ),
        ("no .exe", format!("{claude}\\hooks\\gk")),
    ] {
        let raw = fs::read_to_string(sb.user_settings()).unwrap();
        let anchor = "\"UserPromptSubmit\": [";
        let at = raw.find(anchor).expect("UserPromptSubmit array") + anchor.len();
        let entry =
            json!({"hooks": [{"type": "command", "command": second, "args": ["hook", "prompt"]}]});
        let doubled = format!("{}\r\n      {entry},{}", &raw[..at], &raw[at..]);
        fs::write(sb.user_settings(), &doubled).unwrap();

        let turn = sb.turn("implement the ontology");
        turn.assert_completed();
        assert_eq!(
            turn.contexts().len(),
            2,
            "{what}: {}",
            turn.describe_hooks()
        );
        // The session check at the start of that turn said so, in one line
        // ending with the doctor command.
        let warnings = turn.system_messages("SessionStart");
        assert_eq!(warnings.len(), 1, "{what}: {}", turn.describe_hooks());
        assert!(
            warnings[0].starts_with("gk: gk's prompt hook runs twice on every UserPromptSubmit")
                && warnings[0].ends_with(" -- gk doctor --fix")
                && !warnings[0].contains('\n'),
            "{what}: {warnings:?}"
        );
        let (code, codes) = doctor_codes(&sb);
        assert_eq!(code, Some(2), "{what}: {codes:?}");
        assert!(
            codes.iter().any(|c| c == "hook-fires-twice"),
            "{what}: {codes:?}"
        );

        let out = sb.gk_ok(&["doctor", "--fix", "--yes"]);
        assert_no_secret("doctor --fix", &out);
        let (_, codes) = doctor_codes(&sb);
        assert!(
            !codes.iter().any(|c| c == "hook-fires-twice"),
            "{what}: {codes:?}"
        );
        let raw = fs::read_to_string(sb.user_settings()).unwrap();
        assert!(raw.contains(ENV_BLOCK), "{what}: env block changed:\n{raw}");
        let settings = parse_settings(&raw);
        assert_eq!(handler(&settings, "UserPromptSubmit").0, exe, "{what}");
        let turn = sb.turn("implement the ontology");
        assert_eq!(
            turn.contexts().len(),
            1,
            "{what}: {}",
            turn.describe_hooks()
        );
        assert_eq!(
            turn.system_messages("SessionStart"),
            Vec::<String>::new(),
            "{what}: {}",
            turn.describe_hooks()
        );
    }

    // Uninstall: the settings bytes back, the program gone, no copy left.
    let out = sb.gk_ok(&["uninstall", "--yes"]);
    assert_no_secret("uninstall", &out);
    assert_eq!(fs::read_to_string(sb.user_settings()).unwrap(), before);
    let hooks = sb.claude_dir().join("hooks");
    assert!(!hooks.join("gk.exe").exists());
    assert_eq!(leftovers(&hooks), Vec::<String>::new());
    assert!(
        !text(&out.stdout).contains("the running copy was moved"),
        "{}",
        text(&out.stdout)
    );
    let turn = sb.turn("implement the ontology");
    turn.assert_completed();
    assert!(turn.contexts().is_empty(), "{}", turn.describe_hooks());
    for event in ["Stop", "SessionStart"] {
        assert!(
            turn.hook_responses(event).is_empty(),
            "{event}: {}",
            turn.describe_hooks()
        );
    }
}

fn windows_release_archive_as_a_user_uses_it() {
    let _serial = harness::serial();
    let tools = wine::tools("windows_release_archive_as_a_user_uses_it", false);
    let archive = std::env::var_os("GK_E2E_WINDOWS_ARCHIVE")
        .map(std::path::PathBuf::from)
        .expect("GK_E2E_WINDOWS_ARCHIVE names no archive (scripts/windows-archive.sh)");
    let sb = WinSandbox::new(tools);

    // The checksum beside the archive matches, as `sha256sum -c` checks it.
    let name = archive.file_name().unwrap().to_string_lossy().into_owned();
    let sum = fs::read_to_string(format!("{}.sha256", archive.display())).expect("checksum file");
    let check = std::process::Command::new("sha256sum")
        .arg("-c")
        .current_dir(archive.parent().unwrap())
        .stdin(std::process::Stdio::piped())
        .output_with_input(sum.as_bytes());
    assert!(check.status.success(), "{name}: {}", text(&check.stdout));

    // Unpack it where a user would (a folder of their own), flat: gk.exe at the top.
    let unpacked = sb.root().join("download/gk-release");
    let unzip = std::process::Command::new("python3")
        .args(["-m", "zipfile", "-e"])
        .arg(&archive)
        .arg(&unpacked)
        .output()
        .expect("python3 unpacks the zip");
    assert!(unzip.status.success(), "{}", text(&unzip.stderr));
    let gk = unpacked.join("gk.exe");
    assert!(gk.is_file(), "no gk.exe at the top of {name}");

    // A fresh profile whose settings.json is CRLF + BOM with a secret in env.
    let before = settings_before(true);
    fs::create_dir_all(sb.claude_dir()).unwrap();
    fs::write(sb.user_settings(), &before).unwrap();
    let out = sb.gk_at(&gk, &["install", "--yes"], b"");
    assert!(
        out.status.success(),
        "install: {}\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    assert_no_secret("install", &out);
    let raw = fs::read_to_string(sb.user_settings()).unwrap();
    assert!(raw.starts_with('\u{feff}'), "the BOM went");
    assert!(
        !raw.replace("\r\n", "").contains('\n'),
        "a line lost its CR:\n{raw:?}"
    );
    assert!(raw.contains(ENV_BLOCK), "env block changed");

    // The prompt and Stop hooks, run through the registered command (program + args, no shell).
    let settings = parse_settings(&raw);
    for (event, payload, expect) in [
        (
            "UserPromptSubmit",
            json!({"hook_event_name": "UserPromptSubmit", "prompt": "implement the ontology", "session_id": "s", "cwd": sb.win(&sb.project())}),
            "additionalContext",
        ),
        (
            "Stop",
            json!({"hook_event_name": "Stop", "stop_hook_active": false, "session_id": "s"}),
            "systemMessage",
        ),
    ] {
        let (command, args) = handler(&settings, event);
        let line = format!("\"{command}\" {}", args.join(" "));
        let out = sb.batch("hook", &[line], payload.to_string().as_bytes(), &[]);
        assert_eq!(out.status.code(), Some(0), "{event}");
        assert!(out.stderr.is_empty(), "{event}: {}", text(&out.stderr));
        let printed: Value = serde_json::from_slice(&out.stdout)
            .unwrap_or_else(|e| panic!("{event}: not JSON ({e}): {}", text(&out.stdout)));
        let shown = if event == "Stop" {
            printed["systemMessage"].as_str().unwrap_or("").to_string()
        } else {
            printed["hookSpecificOutput"][expect]
                .as_str()
                .unwrap_or("")
                .to_string()
        };
        assert!(
            harness::gatekeeper_part(&shown).starts_with("[Gatekeeper] State: clean")
                || shown.starts_with("STATE [CLEAN]"),
            "{event}: {printed}"
        );
    }

    // The session check, the same way: a healthy setup (a BOM does not
    // change what runs) prints nothing.
    let (command, args) = handler(&settings, "SessionStart");
    let line = format!("\"{command}\" {}", args.join(" "));
    let payload = json!({"hook_event_name": "SessionStart", "source": "startup", "session_id": "s", "cwd": sb.win(&sb.project())});
    let out = sb.batch("hook", &[line], payload.to_string().as_bytes(), &[]);
    assert_eq!(out.status.code(), Some(0), "SessionStart");
    assert!(out.stderr.is_empty(), "SessionStart: {}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "", "SessionStart: a healthy setup");

    let project = sb.win(&sb.project());
    let out = sb.gk_at(&gk, &["doctor", "--project", &project], b"");
    assert_no_secret("doctor", &out);
    // Healthy, smoke tests passed; the one warning is the BOM (exit 1).
    let report = text(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(1),
        "doctor:\n{report}\n{}",
        text(&out.stderr)
    );
    assert!(report.contains("[settings-bom]"), "{report}");
    assert!(
        report.contains("Doctor found 0 errors and 1 warning"),
        "{report}"
    );
    assert!(report.contains("[✓] Smoke test"), "{report}");

    let out = sb.gk_at(&gk, &["uninstall", "--yes"], b"");
    assert!(
        out.status.success(),
        "uninstall: {}\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    assert_no_secret("uninstall", &out);
    assert_eq!(
        fs::read(sb.user_settings()).unwrap(),
        before.as_bytes(),
        "bytes back"
    );
    let hooks = sb.claude_dir().join("hooks");
    assert!(!hooks.join("gk.exe").exists());
    assert_eq!(leftovers(&hooks), Vec::<String>::new());
}

/// `Command::output` with bytes on stdin.
trait OutputWithInput {
    fn output_with_input(&mut self, input: &[u8]) -> std::process::Output;
}

impl OutputWithInput for std::process::Command {
    fn output_with_input(&mut self, input: &[u8]) -> std::process::Output {
        use std::io::Write;
        let mut child = self
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("start");
        child
            .stdin
            .take()
            .expect("stdin")
            .write_all(input)
            .expect("write stdin");
        child.wait_with_output().expect("wait")
    }
}

/// Removes the folders it names when dropped: what a test put into the
/// prefix's machine-wide folders goes, also when the test fails.
struct RemoveOnDrop(Vec<std::path::PathBuf>);

impl Drop for RemoveOnDrop {
    fn drop(&mut self) {
        for dir in &self.0 {
            let _ = fs::remove_dir_all(dir);
        }
    }
}

/// The managed channel on the Windows client: `gk.exe install --managed` (Wine
/// asks for no administrator) puts gk.exe at `C:\Program Files\gk\gk.exe`
/// and the drop-in at `C:\Program Files\ClaudeCode\managed-settings.d\gk.json`,
/// a real Windows machine's paths. Beside a managed file that sets
/// `allowManagedHooksOnly`, claude.exe runs each of gk's hooks once from the
/// drop-in (the exec form, a path with a space, no shell), and a second
/// copy of the prompt hook in the user's settings.json not at all; doctor
/// calls gk's hooks neither missing nor doubled. `gk.exe uninstall
/// --managed` takes the program and the drop-in back out.
fn windows_managed_install_runs_gk_for_every_user() {
    let _serial = harness::serial();
    let tools = wine::tools("windows_managed_install_…", true);
    let mut sb = WinSandbox::new(tools);
    let drive_c = sb.tools.prefix.join("drive_c");
    let managed_dir = drive_c.join("Program Files/ClaudeCode");
    let program_dir = drive_c.join("Program Files/gk");
    // The prefix is the test's own: a folder a killed run left goes first.
    let _cleanup = RemoveOnDrop(vec![managed_dir.clone(), program_dir.clone()]);
    let _ = fs::remove_dir_all(&managed_dir);
    let _ = fs::remove_dir_all(&program_dir);

    let out = sb.gk_ok(&["install", "--managed", "--yes"]);
    let said = text(&out.stdout);
    assert!(said.contains("smoke test: gk hook prompt passed"), "{said}");
    let program = program_dir.join("gk.exe");
    assert_eq!(
        fs::read(&program).expect("the machine-wide gk.exe"),
        fs::read(sb.downloaded_gk()).unwrap()
    );
    let dropin = managed_dir.join("managed-settings.d/gk.json");
    let registered = parse_settings(&fs::read_to_string(&dropin).expect("the drop-in"));
    for (event, arg) in [
        ("UserPromptSubmit", "prompt"),
        ("Stop", "stop"),
        ("SessionStart", "session"),
    ] {
        assert_eq!(
            handler(&registered, event),
            (
                r"C:\Program Files\gk\gk.exe".to_string(),
                vec!["hook".to_string(), arg.to_string()]
            )
        );
    }
    fs::write(
        managed_dir.join("managed-settings.json"),
        "{\r\n  \"allowManagedHooksOnly\": true\r\n}\r\n",
    )
    .unwrap();
    // A second copy of the prompt hook in the user's settings: switched off
    // by the policy.
    fs::create_dir_all(sb.claude_dir()).unwrap();
    fs::write(
        sb.user_settings(),
        json!({"hooks": {"UserPromptSubmit": [{"hooks": [{
            "type": "command",
            "command": sb.win(&sb.downloaded_gk()),
            "args": ["hook", "prompt"]
        }]}]}})
        .to_string(),
    )
    .unwrap();

    let turn = sb.turn("implement the ontology");
    turn.assert_completed();
    turn.assert_gk_hooks_ran(1);
    assert!(turn.single_context().contains("[Gatekeeper]"));
    let (_, codes) = doctor_codes(&sb);
    for code in ["hook-missing", "hook-fires-twice", "hooks-disabled"] {
        assert!(!codes.iter().any(|c| c == code), "{code} in {codes:?}");
    }

    sb.gk_ok(&["uninstall", "--managed", "--yes"]);
    assert!(!dropin.exists(), "the drop-in held only gk's entries");
    assert!(!program.exists(), "the machine-wide gk.exe is taken out");
    assert!(
        managed_dir.join("managed-settings.json").exists(),
        "the administrator's managed file stays"
    );
}

/// The repository's marketplace files written to a folder on C: (as a
/// clone holds them), added as a marketplace and gk's plugin installed with
/// claude.exe's own commands, and the downloaded gk.exe's folder put first
/// on PATH (as winget or scoop does). Returns the plugin's id.
fn install_gk_plugin(sb: &mut WinSandbox) -> String {
    use gk::testing::plugin;
    let market = sb.root().join("gk-marketplace");
    for (rel, content) in plugin::files() {
        let to = market.join(&rel);
        fs::create_dir_all(to.parent().expect("a folder")).unwrap();
        fs::write(&to, content).unwrap();
    }
    let download = sb.root().join("download");
    sb.put_on_path(&download);
    sb.claude_ok(&["plugin", "marketplace", "add", &sb.win(&market)]);
    let id = format!("{}@{}", plugin::PLUGIN, plugin::MARKETPLACE);
    sb.claude_ok(&["plugin", "install", &id]);
    id
}

/// gk as a plugin on the Windows client: gk's plugin from the repository's
/// marketplace files, gk.exe found on PATH by the bare name `gk` in the
/// plugin's exec-form hooks. One turn runs each of gk's hooks once, from
/// the plugin; the session check is silent and hands Claude the Task State
/// Convention; settings.json holds no hooks, and the turn changes nothing
/// in it.
fn windows_gk_plugin_runs_each_hook_once_with_no_hooks_in_settings() {
    let _serial = harness::serial();
    let tools = wine::tools("windows_gk_plugin_…", true);
    let mut sb = WinSandbox::new(tools);
    let id = install_gk_plugin(&mut sb);
    let before = fs::read_to_string(sb.user_settings()).expect("the client's settings.json");
    let settings = parse_settings(&before);
    assert_eq!(settings.get("hooks"), None, "{settings:#}");
    assert_eq!(settings["enabledPlugins"][&id], true, "{settings:#}");

    let turn = sb.turn("explain the build");
    turn.assert_completed();
    turn.assert_gk_hooks_ran(1);
    assert_eq!(turn.plugin_runs(&id), 3, "{}", turn.describe_hooks());
    assert!(turn.single_context().contains("[Gatekeeper]"));
    turn.convention_given_silently();
    assert_eq!(
        fs::read_to_string(sb.user_settings()).unwrap(),
        before,
        "a turn changes nothing in settings.json"
    );
    assert!(!sb.claude_dir().join("CLAUDE.md").exists());
}

/// gk in settings and as a plugin on the Windows client: `gk.exe install`, then gk's plugin
/// too. claude.exe runs each hook twice (a plugin's copy is never merged
/// with a settings file's); `gk.exe doctor` reports
/// `hook-in-plugin-and-settings` (exit 2) naming the plugin and
/// settings.json; `gk.exe doctor --fix --yes` takes install's entries out
/// of settings.json, `env` intact and the plugin's files untouched, and
/// each hook runs once again, from the plugin.
fn windows_gk_in_a_plugin_and_in_settings_runs_twice_until_doctor_fixes_it() {
    let _serial = harness::serial();
    let tools = wine::tools("windows_gk_in_a_plugin_and_in_settings_…", true);
    let mut sb = WinSandbox::new(tools);
    fs::create_dir_all(sb.claude_dir()).unwrap();
    fs::write(sb.user_settings(), settings_before(false)).unwrap();
    sb.gk_ok(&["install", "--yes"]);
    let id = install_gk_plugin(&mut sb);

    let turn = sb.turn("implement the ontology");
    turn.assert_completed();
    turn.assert_gk_hooks_ran(2);
    assert_eq!(turn.plugin_runs(&id), 3, "{}", turn.describe_hooks());
    turn.assert_session_warned_of_plugin(&id);

    let (code, codes) = doctor_codes(&sb);
    assert_eq!(code, Some(2), "{codes:?}");
    assert!(
        codes.iter().any(|c| c == "hook-in-plugin-and-settings"),
        "{codes:?}"
    );
    let project = sb.win(&sb.project());
    let out = sb.gk(&["doctor", "--no-smoke", "--project", &project]);
    let said = text(&out.stdout);
    assert!(said.contains(&format!("plugin {id}")), "{said}");
    assert!(said.contains(&sb.win(&sb.user_settings())), "{said}");
    let market = sb.root().join("gk-marketplace");
    let plugin_files = || -> Vec<Vec<u8>> {
        gk::testing::plugin::files()
            .into_iter()
            .map(|(rel, _)| fs::read(market.join(rel)).unwrap())
            .collect()
    };
    let plugin_before = plugin_files();
    let out = sb.gk_ok(&["doctor", "--fix", "--yes"]);
    assert_no_secret("doctor --fix", &out);

    // The client wrote the file again when it added the plugin (LF line
    // ends), so the env block is compared as values, not bytes.
    let raw = fs::read_to_string(sb.user_settings()).unwrap();
    assert_eq!(
        parse_settings(&raw)["env"],
        json!({"GK_E2E_PROXY_TOKEN": SECRET, "GK_E2E_FLAG": "1"}),
        "{raw}"
    );
    assert!(!raw.contains("gk.exe"), "install's hooks are out:\n{raw}");
    assert_eq!(
        plugin_files(),
        plugin_before,
        "--fix never edits the plugin"
    );
    let turn = sb.turn("implement the ontology");
    turn.assert_completed();
    turn.assert_gk_hooks_ran(1);
    assert_eq!(turn.plugin_runs(&id), 3, "{}", turn.describe_hooks());
    let (_, codes) = doctor_codes(&sb);
    assert!(!codes.iter().any(|c| c.starts_with("hook-")), "{codes:?}");
}

/// A `.reg` file's line setting the value `Settings` to `json_text`.
fn reg_value_line(json_text: &str) -> String {
    let escaped = json_text.replace('\\', "\\\\").replace('"', "\\\"");
    format!("\"Settings\"=\"{escaped}\"")
}

/// Takes the client's policy keys (HKLM and HKCU) out of the prefix's
/// registry when dropped: what a test put there goes, also when it fails.
struct PolicyKeysGone(std::path::PathBuf);

impl PolicyKeysGone {
    fn now(&self) {
        let reg = self.0.join("drive_c/gk-e2e-policy-gone.reg");
        let _ = fs::write(
            &reg,
            "REGEDIT4\r\n\r\n[-HKEY_LOCAL_MACHINE\\SOFTWARE\\Policies\\ClaudeCode]\r\n\r\n\
             [-HKEY_CURRENT_USER\\SOFTWARE\\Policies\\ClaudeCode]\r\n",
        );
        let _ = std::process::Command::new("wine")
            .args(["regedit", "/s", r"C:\gk-e2e-policy-gone.reg"])
            .env("WINEPREFIX", &self.0)
            .env("WINEDEBUG", "-all")
            .output();
        let _ = fs::remove_file(&reg);
    }
}

impl Drop for PolicyKeysGone {
    fn drop(&mut self) {
        self.now();
    }
}

/// The registry policy on the Windows client: the drop-in that
/// `gk.exe install --managed --output` writes, put into the value
/// `HKLM\SOFTWARE\Policies\ClaudeCode\Settings` (as an administrator whose
/// policy lives in the registry does), with gk.exe at the machine-wide
/// path. claude.exe runs each of gk's hooks once from it, and nothing of a
/// drop-in in `managed-settings.d` beside it (the registry value hides the
/// managed files: measured). `gk.exe doctor` finds gk's hooks registered
/// (no `hook-missing`) and reports the hidden drop-in (`managed-hidden`).
fn windows_a_registry_policy_takes_the_managed_tier() {
    let _serial = harness::serial();
    let tools = wine::tools("windows_a_registry_policy_…", true);
    let mut sb = WinSandbox::new(tools);
    let drive_c = sb.tools.prefix.join("drive_c");
    let managed_dir = drive_c.join("Program Files/ClaudeCode");
    let program_dir = drive_c.join("Program Files/gk");
    let _cleanup = RemoveOnDrop(vec![managed_dir.clone(), program_dir.clone()]);
    let keys = PolicyKeysGone(sb.tools.prefix.clone());
    keys.now();
    let _ = fs::remove_dir_all(&managed_dir);

    let dropin = sb.root().join("gk.json");
    sb.gk_ok(&[
        "install",
        "--managed",
        "--output",
        &sb.win(&dropin),
        "--yes",
    ]);
    fs::create_dir_all(&program_dir).unwrap();
    fs::copy(sb.downloaded_gk(), program_dir.join("gk.exe")).unwrap();
    let policy: Value = parse_settings(&fs::read_to_string(&dropin).unwrap());
    let reg = sb.root().join("policy.reg");
    fs::write(
        &reg,
        format!(
            "REGEDIT4\r\n\r\n[HKEY_LOCAL_MACHINE\\SOFTWARE\\Policies\\ClaudeCode]\r\n{}\r\n",
            reg_value_line(&policy.to_string())
        ),
    )
    .unwrap();
    let out = sb.batch(
        "policy",
        &[format!("regedit /s {}", sb.win(&reg))],
        b"",
        &[],
    );
    assert!(out.status.success(), "regedit: {}", text(&out.stderr));
    // An older drop-in of another tool's, which the registry value hides.
    fs::create_dir_all(managed_dir.join("managed-settings.d")).unwrap();
    let hidden = managed_dir.join("managed-settings.d/other.json");
    fs::write(
        &hidden,
        json!({"hooks": {"Notification": [{"hooks": [{"type": "command", "command": "notify"}]}],
                         "Stop": [{"hooks": [{"type": "command", "command": sb.win(&sb.downloaded_gk()), "args": ["hook", "stop"]}]}]}})
        .to_string(),
    )
    .unwrap();

    let turn = sb.turn("implement the ontology");
    turn.assert_completed();
    turn.assert_gk_hooks_ran(1);
    assert!(turn.single_context().contains("[Gatekeeper]"));

    let (_, codes) = doctor_codes(&sb);
    assert!(codes.iter().any(|c| c == "managed-hidden"), "{codes:?}");
    for code in ["hook-missing", "hook-fires-twice"] {
        assert!(!codes.iter().any(|c| c == code), "{code} in {codes:?}");
    }
    let project = sb.win(&sb.project());
    let out = sb.gk(&["doctor", "--no-smoke", "--project", &project]);
    let said = text(&out.stdout);
    assert!(
        said.contains(r"HKLM\SOFTWARE\Policies\ClaudeCode\Settings"),
        "{said}"
    );
    assert!(said.contains(&sb.win(&hidden)), "{said}");
}

/// gk.exe starts at every prompt, so it imports no library of the Windows
/// shell or GUI: a program that imports shell32.dll loads user32.dll and
/// gdi32.dll with it and pays their set-up at every start and exit, even
/// if it never calls them. The `dirs` crate put shell32.dll and
/// combase.dll there for a home-folder fallback gk never needs under the
/// client (docs/maintainers/benchmarks.md, "gk.exe's libraries"). Read
/// from the program's import table (binutils' `objdump -p`); no Wine run.
fn windows_gk_exe_loads_no_library_of_the_shell_or_the_gui() {
    let tools = wine::tools(
        "windows_gk_exe_loads_no_library_of_the_shell_or_the_gui",
        false,
    );
    let out = std::process::Command::new("objdump")
        .arg("-p")
        .arg(&tools.gk_exe)
        .output()
        .expect("objdump (binutils) runs");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let imports: Vec<String> = text(&out.stdout)
        .lines()
        .filter_map(|l| l.trim().strip_prefix("DLL Name: "))
        .map(str::to_ascii_lowercase)
        .collect();
    assert!(imports.iter().any(|d| d == "kernel32.dll"), "{imports:?}");
    for dll in [
        "shell32.dll",
        "user32.dll",
        "gdi32.dll",
        "ole32.dll",
        "oleaut32.dll",
        "combase.dll",
        "shlwapi.dll",
    ] {
        assert!(
            !imports.iter().any(|d| d == dll),
            "gk.exe imports {dll}: {imports:?}"
        );
    }
}
