use super::*;

#[test]
fn claude_config_dir_wins_over_home() {
    let p = ClaudePaths::resolve(Some("/cfg".into()), Some("/home/u".into())).unwrap();
    assert_eq!(p.dir(), Path::new("/cfg"));
    assert_eq!(p.state_file(), Path::new("/cfg/hooks/task_state.json"));
}

#[test]
fn empty_claude_config_dir_is_ignored() {
    let p = ClaudePaths::resolve(Some("".into()), Some("/home/u".into())).unwrap();
    assert_eq!(p.settings(), Path::new("/home/u/.claude/settings.json"));
}

#[test]
fn no_home_and_no_config_dir_gives_none() {
    assert_eq!(ClaudePaths::resolve(None, None), None);
}

fn vars(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<OsString> {
    let pairs: Vec<(String, String)> = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    move |name| {
        pairs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| OsString::from(v))
    }
}

#[test]
fn backups_go_to_the_data_folder_of_each_platform() {
    let home = Some(Path::new("/home/ann"));
    let at = |os, v: &[(&str, &str)], home: Option<&Path>| {
        backup_dir(os, &vars(v), home).map(|p| p.to_string_lossy().into_owned())
    };
    for os in [Os::Linux, Os::MacOs] {
        assert_eq!(
            at(os, &[], home).as_deref(),
            Some("/home/ann/.local/share/gk/backups")
        );
        assert_eq!(
            at(os, &[("XDG_DATA_HOME", "/data/ann/")], home).as_deref(),
            Some("/data/ann/gk/backups")
        );
        // Relative or empty: ignored, as the XDG spec says.
        for bad in ["", "rel/data"] {
            assert_eq!(
                at(os, &[("XDG_DATA_HOME", bad)], home).as_deref(),
                Some("/home/ann/.local/share/gk/backups")
            );
        }
        // LOCALAPPDATA means nothing here.
        assert_eq!(
            at(os, &[("LOCALAPPDATA", "/x")], home).as_deref(),
            Some("/home/ann/.local/share/gk/backups")
        );
        assert_eq!(at(os, &[], None), None);
    }
    let win_home = Some(Path::new(r"C:\Users\Ann"));
    assert_eq!(
        at(Os::Windows, &[("LOCALAPPDATA", r"D:\Local")], win_home).as_deref(),
        Some(r"D:\Local\gk\backups")
    );
    assert_eq!(
        at(Os::Windows, &[], win_home).as_deref(),
        Some(r"C:\Users\Ann\AppData\Local\gk\backups")
    );
    // XDG variables mean nothing on Windows; a relative value is ignored.
    assert_eq!(
        at(
            Os::Windows,
            &[("XDG_DATA_HOME", r"D:\x"), ("LOCALAPPDATA", "Local")],
            win_home
        )
        .as_deref(),
        Some(r"C:\Users\Ann\AppData\Local\gk\backups")
    );
}

#[test]
fn backups_are_never_inside_the_task_state_folder() {
    let home = Some(Path::new("/home/ann"));
    let dir = |v: &[(&str, &str)]| backup_dir(Os::Linux, &vars(v), home).unwrap();
    // The usual layout: state in ~/.local/state/gk, backups apart.
    let usual = dir(&[]);
    assert!(!usual.starts_with("/home/ann/.local/state/gk"));
    // One folder for both: the backups step out of <it>/gk.
    let same = dir(&[("XDG_STATE_HOME", "/x/"), ("XDG_DATA_HOME", "/x")]);
    assert_eq!(same, Path::new("/x/gk-backups"));
    assert!(!same.starts_with("/x/gk"));
    let implied = dir(&[("XDG_STATE_HOME", "/home/ann/.local/share")]);
    assert_eq!(implied, Path::new("/home/ann/.local/share/gk-backups"));
}

fn home_with(os: Os, vars: &[(&str, &str)], system: Option<&str>) -> Option<PathBuf> {
    let vars: Vec<(String, OsString)> = vars
        .iter()
        .map(|(k, v)| (k.to_string(), OsString::from(v)))
        .collect();
    let env = move |name: &str| vars.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone());
    resolve_home(os, &env, &|| system.map(PathBuf::from))
}

#[test]
fn windows_home_is_userprofile_not_the_system_profile_nor_home() {
    let found = home_with(
        Os::Windows,
        &[
            ("USERPROFILE", r"C:\gkhome"),
            ("HOME", "/c/Users/git-bash-home"),
        ],
        Some(r"C:\Users\real"),
    );
    assert_eq!(found, Some(PathBuf::from(r"C:\gkhome")));
}

#[test]
fn windows_without_userprofile_asks_the_system_never_home() {
    let system = Some(r"C:\Users\real");
    for vars in [
        &[("HOME", r"H:\")][..],
        &[("USERPROFILE", ""), ("HOME", r"H:\")][..],
    ] {
        assert_eq!(
            home_with(Os::Windows, vars, system),
            Some(PathBuf::from(r"C:\Users\real")),
            "{vars:?}"
        );
    }
    assert_eq!(home_with(Os::Windows, &[("HOME", r"H:\")], None), None);
}

#[test]
fn unix_home_is_home_then_the_system() {
    for os in [Os::Linux, Os::MacOs] {
        let vars = [("HOME", "/home/u"), ("USERPROFILE", "/elsewhere")];
        assert_eq!(
            home_with(os, &vars, Some("/home/passwd")),
            Some(PathBuf::from("/home/u"))
        );
        assert_eq!(
            home_with(
                os,
                &[("HOME", ""), ("USERPROFILE", "/x")],
                Some("/home/passwd")
            ),
            Some(PathBuf::from("/home/passwd"))
        );
        assert_eq!(home_with(os, &[], Some("")), None);
    }
}

#[test]
fn home_dir_reads_the_variable_of_this_platform() {
    // The test binary's own environment: USERPROFILE on Windows (also
    // under Wine), HOME elsewhere, when set.
    let var = if cfg!(windows) { "USERPROFILE" } else { "HOME" };
    #[allow(clippy::disallowed_methods)] // the test's own environment
    if let Some(v) = std::env::var_os(var).filter(|v| !v.is_empty()) {
        let env = crate::env::Env::from_process();
        assert_eq!(home_dir(&env), Some(PathBuf::from(v)));
    }
}

#[test]
fn binary_name_follows_platform() {
    let p = ClaudePaths::at("/c");
    assert_eq!(p.binary(Os::Windows), Path::new("/c/hooks/gk.exe"));
    assert_eq!(p.binary(Os::Linux), Path::new("/c/hooks/gk"));
}

#[test]
fn state_dir_override_then_xdg_then_home() {
    let home = Path::new("/home/u");
    let dir = |os, gk: Option<&str>, xdg: Option<&str>| {
        state_dir(os, gk.map(Into::into), xdg.map(Into::into), Some(home))
    };
    assert_eq!(
        dir(Os::Linux, None, None).unwrap(),
        Path::new("/home/u/.local/state/gk")
    );
    assert_eq!(
        dir(Os::Linux, None, Some("/var/st")).unwrap(),
        Path::new("/var/st/gk")
    );
    assert_eq!(
        dir(Os::MacOs, None, Some("/var/st")).unwrap(),
        Path::new("/var/st/gk")
    );
    // Relative or empty values are ignored, as the XDG rules say.
    assert_eq!(
        dir(Os::Linux, Some("rel"), Some("st")).unwrap(),
        Path::new("/home/u/.local/state/gk")
    );
    assert_eq!(
        dir(Os::Linux, Some(""), Some("")).unwrap(),
        Path::new("/home/u/.local/state/gk")
    );
    assert_eq!(
        dir(Os::Linux, Some("/t/state"), Some("/var/st")).unwrap(),
        Path::new("/t/state")
    );
    // Windows: XDG_STATE_HOME is not a Windows convention.
    let win = state_dir(
        Os::Windows,
        None,
        Some("C:\\xdg".into()),
        Some(Path::new(r"C:\Users\Ann")),
    )
    .unwrap();
    assert_eq!(win, Path::new(r"C:\Users\Ann").join(".local/state/gk"));
    assert_eq!(
        state_dir(Os::Windows, Some(r"D:\st".into()), None, None).unwrap(),
        Path::new(r"D:\st")
    );
    assert_eq!(state_dir(Os::Linux, None, None, None), None);
}

#[test]
fn plain_session_ids_are_file_names_as_they_are() {
    let uuid = "3f2a9c1e-5b7d-4e8a-9c2f-1a2b3c4d5e6f";
    assert_eq!(record_file_name(uuid).unwrap(), format!("{uuid}.json"));
    assert_eq!(record_file_name("a_b-1").unwrap(), "a_b-1.json");
    let long = "a".repeat(128);
    assert_eq!(record_file_name(&long).unwrap(), format!("{long}.json"));
    assert_eq!(record_file_name(""), None);
}

#[test]
fn hostile_session_ids_become_hashed_names_inside_the_folder() {
    let hostile = [
        "../outside",
        "..",
        ".",
        "a/b",
        "a\\b",
        "/etc/passwd",
        "C:\\Windows\\x",
        "a\0b",
        "ABC",
        "con",
        "nul",
        "com1",
        "lpt9",
        "-starts-with-dash",
        "_0123456789abcdef0123456789abcdef",
        "caf\u{e9}",
        " ",
        "x.json",
    ];
    let long = "a".repeat(129);
    let mut seen = std::collections::HashSet::new();
    for id in hostile.iter().copied().chain([long.as_str()]) {
        let name = record_file_name(id).unwrap();
        assert!(
            name.starts_with('_') && name.len() == 1 + 32 + 5,
            "{id:?}: {name}"
        );
        assert!(is_record_file_name(&name), "{name}");
        assert!(
            !name.contains(['/', '\\', '\0']) && !name.contains(".."),
            "{name}"
        );
        assert!(seen.insert(name), "two ids share a name");
    }
    // Stable: the same id always gives the same record.
    assert_eq!(record_file_name("../x"), record_file_name("../x"));
    assert_ne!(record_file_name("ABC"), record_file_name("abc"));
}

#[test]
fn folder_keys_and_pointer_names() {
    assert_eq!(folder_key(Os::Linux, "/w/p/").as_deref(), Some("/w/p"));
    assert_eq!(folder_key(Os::Linux, "/").as_deref(), Some("/"));
    assert_eq!(folder_key(Os::Linux, "/W/P").as_deref(), Some("/W/P"));
    assert_eq!(folder_key(Os::Linux, "w/p"), None);
    assert_eq!(folder_key(Os::Linux, ""), None);
    // Windows: one key for every spelling of one folder.
    for spelling in [r"C:\Work\P", "c:/work/p", r"C:\WORK\p\", "C:/Work/P//"] {
        assert_eq!(
            folder_key(Os::Windows, spelling).as_deref(),
            Some("c:/work/p"),
            "{spelling}"
        );
    }
    assert_eq!(folder_key(Os::Windows, r"C:\").as_deref(), Some("c:/"));
    assert_eq!(
        folder_key(Os::Windows, r"\\srv\share\p").as_deref(),
        Some("//srv/share/p")
    );
    assert_eq!(folder_key(Os::Windows, "C:relative"), None);
    assert_eq!(folder_key(Os::Windows, r"Work\P"), None);
    // The pointer's name: never a record's, always recognised.
    let name = folder_pointer_name("/w/p").unwrap();
    assert_eq!(name.len(), "folder.".len() + 32 + ".json".len());
    assert!(is_folder_pointer_name(&name), "{name}");
    assert!(!is_record_file_name(&name), "{name}");
    assert_ne!(folder_pointer_name("/w/q"), Some(name));
    assert_eq!(folder_pointer_name(""), None);
    assert!(!is_folder_pointer_name("folder.abc.json"));
    assert!(!is_folder_pointer_name(&format!(
        "folder.{}.json",
        "G".repeat(32)
    )));
}

#[test]
fn ids_named_like_files_gk_or_the_client_keep_are_hashed() {
    for id in RESERVED_RECORD_NAMES {
        let name = record_file_name(id).unwrap();
        assert!(name.starts_with('_') && name.len() == 38, "{id}: {name}");
        assert!(!is_record_file_name(&format!("{id}.json")), "{id}");
    }
    assert_eq!(record_file_name("settings2").unwrap(), "settings2.json");
}

#[test]
fn roots_home_and_the_claude_folder_are_no_state_folders() {
    let problem = |os, dir: &str, home: &str, claude: &str| {
        state_dir_problem(
            os,
            Path::new(dir),
            Some(Path::new(home)),
            Some(Path::new(claude)),
        )
    };
    let (h, c) = ("/home/u", "/home/u/.claude");
    for dir in [
        "/",
        "//",
        "/home",
        "/home/u",
        "/home/u/",
        "/home/u/.claude",
        "/home/u/.claude/hooks",
        "/home/u/x/../.claude/hooks",
        "/home/u/st/..",
    ] {
        assert!(problem(Os::Linux, dir, h, c).is_some(), "{dir}");
    }
    for dir in ["/home/u/.local/state/gk", "/var/st", "/home/u/.claude2"] {
        assert_eq!(problem(Os::Linux, dir, h, c), None, "{dir}");
    }
    // A Claude folder elsewhere (CLAUDE_CONFIG_DIR).
    assert!(problem(Os::Linux, "/cfg/hooks", h, "/cfg").is_some());
    assert!(problem(Os::Linux, "/cfg", h, "/cfg/claude").is_some());
    let (wh, wc) = (r"C:\Users\Ann", r"C:\Users\Ann\.claude");
    for dir in [
        r"C:\",
        "C:/",
        r"D:\",
        r"\\srv\share",
        r"\\srv\share\",
        r"c:\users\ann",
        r"C:\USERS\ANN\.Claude\hooks",
    ] {
        assert!(problem(Os::Windows, dir, wh, wc).is_some(), "{dir}");
    }
    for dir in [r"C:\Users\Ann\.local\state\gk", r"D:\st", r"\\srv\share\gk"] {
        assert_eq!(problem(Os::Windows, dir, wh, wc), None, "{dir}");
    }
    // The system's own folders (found under Wine: `C:\Windows` was taken,
    // and its permission rules would let Claude write `*.json` there).
    let system = Some("it is a system folder or inside one".to_string());
    for dir in ["/etc", "/etc/gk", "/usr/local/state", "/bin"] {
        assert_eq!(problem(Os::Linux, dir, h, c), system, "{dir}");
    }
    for dir in [
        r"C:\Windows",
        r"c:\WINDOWS\Temp\gk",
        r"C:\Program Files\gk",
        r"D:\Program Files (x86)",
    ] {
        assert_eq!(problem(Os::Windows, dir, wh, wc), system, "{dir}");
    }
    assert_eq!(problem(Os::Windows, r"\\srv\windows\gk", wh, wc), None);
    // A service account's profile lies under C:\Windows: its own state
    // folder is fine, the profile itself is still the home folder.
    let sh = r"C:\Windows\ServiceProfiles\NetworkService";
    let sc = r"C:\Windows\ServiceProfiles\NetworkService\.claude";
    assert_eq!(
        problem(Os::Windows, &format!(r"{sh}\.local\state\gk"), sh, sc),
        None
    );
    assert!(problem(Os::Windows, sh, sh, sc).is_some());
    assert_eq!(problem(Os::Windows, r"C:\Windows\gk", sh, sc), system);
    assert_eq!(
        problem(Os::Linux, "/usr/gk", "/usr/home/u", "/usr/home/u/.claude"),
        system
    );
}

#[test]
fn no_rule_is_written_for_a_root_or_the_home_folder() {
    let rules = |os, dir: &str, home: &str| state_rules(os, Path::new(dir), Some(Path::new(home)));
    // `Edit(/*.json)` would be `<folder of settings.json>/*.json`.
    for dir in ["/", "/home", "/home/u", "/home/u/"] {
        assert_eq!(rules(Os::Linux, dir, "/home/u"), None, "{dir}");
    }
    assert_eq!(rules(Os::Windows, r"C:\", r"C:\Users\Ann"), None);
    assert_eq!(rules(Os::Windows, r"C:\Users\Ann", r"C:\Users\Ann"), None);
    // Names the client could read another way.
    for dir in ["/var/a\nb", "/var/ a", "/var/a /gk", "/var/a\tb"] {
        assert_eq!(rules(Os::Linux, dir, "/home/u"), None, "{dir:?}");
    }
    assert_eq!(
        rules(Os::Linux, "/var/st", "/home/u").unwrap()[1],
        "Edit(//var/st/*.json)"
    );
}

#[test]
fn record_names_are_recognised() {
    assert!(is_record_file_name("3f2a9c1e-5b7d.json"));
    assert!(!is_record_file_name("3f2a9c1e-5b7d.json.gk-tmp-12"));
    assert!(!is_record_file_name("notes.txt"));
    assert!(!is_record_file_name("Upper.json"));
    assert!(!is_record_file_name("_short.json"));
    assert!(!is_record_file_name(".json"));
}

#[test]
fn rules_name_the_folder_from_home_or_absolutely() {
    let rules =
        |os, dir: &str, home: Option<&str>| state_rules(os, Path::new(dir), home.map(Path::new));
    assert_eq!(
        rules(Os::Linux, "/home/u/.local/state/gk", Some("/home/u")).unwrap(),
        [
            "Read(~/.local/state/gk/*.json)".to_string(),
            "Edit(~/.local/state/gk/*.json)".to_string()
        ]
    );
    assert_eq!(
        rules(Os::Linux, "/home/u/.local/state/gk", Some("/home/u/")).unwrap()[1],
        "Edit(~/.local/state/gk/*.json)"
    );
    assert_eq!(
        rules(Os::Linux, "/var/st/gk/", Some("/home/u")).unwrap()[1],
        "Edit(//var/st/gk/*.json)"
    );
    // A sibling of home that shares its prefix is not under it.
    assert_eq!(
        rules(Os::Linux, "/home/u2/gk", Some("/home/u")).unwrap()[0],
        "Read(//home/u2/gk/*.json)"
    );
    assert_eq!(
        rules(
            Os::Windows,
            r"C:\Users\Ann\.local\state\gk",
            Some(r"c:\users\ann")
        )
        .unwrap()[1],
        "Edit(~/.local/state/gk/*.json)"
    );
    assert_eq!(
        rules(Os::Windows, r"D:\State\gk", Some(r"C:\Users\Ann")).unwrap()[1],
        "Edit(//d/State/gk/*.json)"
    );
    for bad in [
        "/home/u/st*te",
        "/home/u/(x)",
        "/home/u/a/../b",
        "/home/u/a\\b",
        "rel/gk",
    ] {
        assert_eq!(rules(Os::Linux, bad, Some("/home/u")), None, "{bad}");
    }
    assert_eq!(
        rules(Os::Windows, r"\\srv\share\gk", Some(r"C:\Users\Ann")),
        None
    );
}
