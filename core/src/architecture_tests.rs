//! The rules of `ARCHITECTURE.md` ("Invariants"), checked against the source: each names what
//! a layer never does, and fails naming the file that does it. Only code before a file's first
//! `#[cfg(test)]` counts (tests may reach across layers to build what they check).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The workspace's root folder.
fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("core sits in the workspace")
        .to_path_buf()
}

/// Every `.rs` file under `root` (a folder, or one file), with its code before the first
/// `#[cfg(test)]`.
fn sources(root: &Path) -> Vec<(PathBuf, String)> {
    let mut found = Vec::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(path) = pending.pop() {
        if path.is_dir() {
            for entry in std::fs::read_dir(&path).expect("a source folder") {
                pending.push(entry.expect("a folder entry").path());
            }
        } else if path.extension().is_some_and(|extension| extension == "rs") {
            let text = std::fs::read_to_string(&path).expect("a source file");
            let code = text.split("#[cfg(test)]").next().unwrap_or_default();
            found.push((path, code.to_owned()));
        }
    }
    found.sort();
    found
}

/// The first segments of the paths `code` names under `prefix` (`crate::`, `super::`):
/// `crate::api::x` and `use crate::{api, store}` both name `api`.
fn named_after(code: &str, prefix: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for (at, _) in code.match_indices(prefix) {
        let rest = &code[at + prefix.len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let mut depth = 0;
            let end = group
                .char_indices()
                .find(|(_, character)| {
                    match character {
                        '{' => depth += 1,
                        '}' if depth == 0 => return true,
                        '}' => depth -= 1,
                        _ => {}
                    }
                    false
                })
                .map_or(group.len(), |(end, _)| end);
            let mut depth = 0;
            let mut start = true;
            let mut name = String::new();
            for character in group[..end].chars() {
                match character {
                    '{' => depth += 1,
                    '}' => depth -= 1,
                    ',' if depth == 0 => start = true,
                    _ if start && (character.is_alphanumeric() || character == '_') => {
                        name.push(character);
                    }
                    _ if start && !name.is_empty() => {
                        names.insert(std::mem::take(&mut name));
                        start = false;
                    }
                    _ => {}
                }
            }
            if !name.is_empty() {
                names.insert(name);
            }
        } else {
            let name: String = rest
                .chars()
                .take_while(|character| character.is_alphanumeric() || *character == '_')
                .collect();
            if !name.is_empty() {
                names.insert(name);
            }
        }
    }
    names
}

/// Fails when a file under `core/src/<part>` (a folder or one file) names one of `forbidden`
/// through `crate::`.
fn never_names(part: &str, forbidden: &[&str]) {
    for (path, code) in sources(&workspace().join("core/src").join(part)) {
        let named = named_after(&code, "crate::");
        for layer in forbidden {
            assert!(
                !named.contains(*layer),
                "{} names `crate::{layer}`: `{part}` never does",
                path.display()
            );
        }
    }
}

/// The names of the `[dependencies]` of the package in `folder`.
fn dependencies(folder: &str) -> BTreeSet<String> {
    let manifest =
        std::fs::read_to_string(workspace().join(folder).join("Cargo.toml")).expect("a manifest");
    let table = manifest.split("[dependencies]").nth(1).unwrap_or_default();
    let table = table.split("\n[").next().unwrap_or_default();
    table
        .lines()
        .filter_map(|line| {
            let name = line.split(['=', '.']).next()?.trim();
            (!name.is_empty() && !name.starts_with('#')).then(|| name.to_owned())
        })
        .collect()
}

#[test]
fn core_has_no_database_driver_and_no_web_framework() {
    let dependencies = dependencies("core");
    for driver in ["sqlx", "warp", "rocket", "axum"] {
        assert!(!dependencies.contains(driver), "core depends on {driver}");
    }
    for (path, code) in sources(&workspace().join("core/src")) {
        assert!(!code.contains("sqlx::"), "{} uses sqlx", path.display());
    }
}

#[test]
fn storage_knows_no_http() {
    let dependencies = dependencies("storage");
    for http in ["http", "hyper", "tower", "warp", "rocket"] {
        assert!(!dependencies.contains(http), "storage depends on {http}");
    }
}

#[test]
fn the_document_never_names_an_endpoint() {
    never_names("openapi", &["api"]);
}

#[test]
fn the_http_layer_never_names_the_endpoints_nor_the_app() {
    never_names("http", &["api", "cli", "App", "AppState", "app", "service"]);
}

#[test]
fn the_metrics_listener_serves_nothing_of_the_operators() {
    never_names("metrics", &["operator_api", "console", "operator_listener"]);
}

#[test]
fn background_work_is_given_what_it_needs_not_the_application() {
    for part in [
        "retention.rs",
        "live_content.rs",
        "events",
        "activity",
        "background.rs",
    ] {
        never_names(part, &["App", "AppState", "app", "service"]);
    }
}

#[test]
fn charts_are_drawn_from_what_they_are_given() {
    never_names(
        "chart",
        &[
            "api", "cli", "service", "App", "AppState", "app", "store", "activity", "console",
        ],
    );
}

#[test]
fn the_console_holds_no_rule_and_asks_only_the_operator_api() {
    never_names(
        "console",
        &[
            "api",
            "cli",
            "service",
            "App",
            "AppState",
            "app",
            "operator",
            "store",
            "domain",
            "economy",
            "progression",
            "content",
            "leaderboard",
        ],
    );
}

#[test]
fn rules_and_records_never_name_the_layers_above_them() {
    for folder in [
        "domain",
        "store",
        "economy",
        "progression",
        "content",
        "leaderboard",
    ] {
        never_names(
            folder,
            &[
                "api", "http", "openapi", "cli", "service", "app", "App", "AppState",
            ],
        );
    }
}

#[test]
fn planners_never_wait_on_anything() {
    for folder in ["domain", "economy", "progression"] {
        for (path, code) in sources(&workspace().join("core/src").join(folder)) {
            assert!(
                !code.contains("async fn") && !code.contains(".await"),
                "{} waits on something: `{folder}/` plans from what it is given",
                path.display()
            );
        }
    }
}

#[test]
fn endpoint_files_never_name_each_other() {
    let api = sources(&workspace().join("core/src/api"));
    let endpoint_files: BTreeSet<String> = api
        .iter()
        .filter(|(_, code)| code.contains("#[utoipa::path("))
        .filter_map(|(path, _)| Some(path.file_stem()?.to_str()?.to_owned()))
        .collect();
    for (path, code) in &api {
        if !endpoint_files
            .iter()
            .any(|name| path.ends_with(format!("{name}.rs")))
        {
            continue;
        }
        let named = named_after(code, "super::");
        let crossed: Vec<&String> = named.intersection(&endpoint_files).collect();
        assert!(
            crossed.is_empty(),
            "{} names the endpoint files {crossed:?}: what endpoints share lives in a shared \
             module",
            path.display()
        );
    }
}

#[test]
fn paths_are_read_from_single_and_grouped_imports() {
    let code = "use crate::{api::x, store::{Store, Change}};\nlet y = crate::http::z;";
    assert_eq!(
        named_after(code, "crate::"),
        BTreeSet::from(["api".to_owned(), "http".to_owned(), "store".to_owned()])
    );
}
