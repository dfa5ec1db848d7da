//! The rules of `ARCHITECTURE.md` ("Invariants"), checked against the source: each names what
//! a layer never does, and fails naming the file that does it. Only code outside test items
//! counts (tests may reach across layers to build what they check): the files `lib.rs` declares
//! and, in each, what no `#[cfg(test)]` marks ([`sources`]).

mod imports;
mod sources;

use std::collections::{BTreeMap, BTreeSet};

use imports::{circles, import_graph, named_after};
use sources::{modules, sources, without_tests, workspace};

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
fn planners_never_wait_on_anything() {
    for folder in ["domain", "economy", "progression", "hooks"] {
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

/// No files import each other round a circle (see [`imports`] for what a file imports and why a
/// child reaching its parent's own items does not count): what two files both need lives in a
/// third, below both. The units are files: two top-level modules may import each other's
/// files so long as no files make a circle.
#[test]
fn no_files_import_each_other_round_a_circle() {
    let modules = modules();
    let files: &BTreeMap<_, _> = &modules
        .iter()
        .map(|module| (module.path.clone(), module.name()))
        .collect();
    let graph = import_graph(&modules);
    let found: Vec<String> = circles(&graph)
        .iter()
        .map(|circle| {
            let members: Vec<&str> = circle.iter().map(|path| files[path].as_str()).collect();
            let imports: Vec<String> = circle
                .iter()
                .flat_map(|from| {
                    graph[from]
                        .intersection(circle)
                        .map(move |to| format!("{} -> {}", files[from], files[to]))
                })
                .collect();
            format!("{members:?} (imports: {})", imports.join(", "))
        })
        .collect();
    assert!(
        found.is_empty(),
        "files import each other round a circle: what both need belongs in a file of its own, \
         below both:\n{}",
        found.join("\n")
    );
}

#[test]
fn paths_are_read_from_single_and_grouped_imports() {
    let code = "use crate::{api::x, store::{Store, Change}};\nlet y = crate::http::z;";
    assert_eq!(
        named_after(code, "crate::"),
        BTreeSet::from(["api".to_owned(), "http".to_owned(), "store".to_owned()])
    );
}

#[test]
fn comments_literals_and_test_items_are_left_out() {
    let text = "use crate::a; // crate::b\nconst C: &str = \"crate::c\";\nconst D: char = '}';\n\
                #[cfg(test)]\nmod tests {\n    use crate::e;\n    fn f() { g('{'); }\n}\nuse crate::h;\n";
    let (code, bare) = without_tests(text);
    assert!(!code.contains("crate::e") && code.contains("crate::h"));
    assert_eq!(
        named_after(&bare, "crate::"),
        BTreeSet::from(["a".to_owned(), "h".to_owned()])
    );
}

#[test]
fn a_circle_is_found_and_a_chain_is_not() {
    let path = |name: &str| vec![name.to_owned()];
    let graph = |edges: &[(&str, &str)]| {
        let mut graph = imports::ImportGraph::new();
        for (from, to) in edges {
            graph.entry(path(from)).or_default().insert(path(to));
            graph.entry(path(to)).or_default();
        }
        graph
    };
    assert!(circles(&graph(&[("a", "b"), ("b", "c"), ("a", "c")])).is_empty());
    assert_eq!(
        circles(&graph(&[("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")])),
        vec![BTreeSet::from([path("a"), path("b"), path("c")])]
    );
}

#[test]
fn a_re_exported_name_leads_to_the_file_that_defines_it() {
    let graph = import_graph(&modules());
    let path = |names: &[&str]| {
        names
            .iter()
            .map(|name| (*name).to_owned())
            .collect::<Vec<_>>()
    };
    let config = &graph[&path(&["api", "config"])];
    assert!(config.contains(&path(&["live_content", "prepared_config"])));
    assert!(config.contains(&path(&["api", "shared", "session"])));
    assert!(!config.contains(&path(&["live_content"])));
    let catalog = &graph[&path(&["content", "catalog"])];
    assert!(catalog.contains(&path(&["content", "error"])));
    assert!(!catalog.contains(&path(&["content"])));
}

/// Core's layers, lowest first, each with what it holds: a file imports from its own layer and
/// those below, never from one above. A layer's parts are module paths; a file belongs to the
/// part that is the longest beginning of its own path (`events::kinds`, the events' records,
/// sits below the rest of `events`).
const LAYERS: &[(&str, &[&str])] = &[
    (
        "records and rules",
        &[
            "domain",
            "store",
            "content",
            "economy",
            "progression",
            "leaderboard",
            "clock",
            "events::kinds",
            "hooks",
        ],
    ),
    (
        "work over the store",
        &[
            "events",
            "activity",
            "retention",
            "live_content",
            "content_publication",
            "background",
            "starter",
            "operator",
            "database",
            "auth",
            "presence",
            "realtime",
        ],
    ),
    ("HTTP", &["http", "openapi", "metrics", "serve", "settings"]),
    ("the application's state", &["app"]),
    ("endpoints", &["api", "operator_api"]),
    ("the console", &["console", "chart"]),
    (
        "the running service",
        &["service", "operator_listener", "cli"],
    ),
];

/// The place in [`LAYERS`] of the module at `path` and its layer's name; `None` for the crate
/// root, which only gathers.
fn layer_of(path: &[String]) -> Option<(usize, &'static str)> {
    let mut best: Option<(usize, usize, &'static str)> = None;
    for (place, (name, parts)) in LAYERS.iter().enumerate() {
        for part in *parts {
            let segments: Vec<&str> = part.split("::").collect();
            let fits = segments.len() <= path.len()
                && segments.iter().zip(path).all(|(part, step)| *part == step);
            if fits && best.is_none_or(|(length, ..)| segments.len() > length) {
                best = Some((segments.len(), place, name));
            }
        }
    }
    best.map(|(_, place, name)| (place, name))
}

#[test]
fn every_top_level_module_has_a_layer() {
    for module in modules() {
        if module.path.len() == 1 && module.path[0] != "architecture_tests" {
            assert!(
                layer_of(&module.path).is_some(),
                "{} is in no layer: add it to `LAYERS` (and ARCHITECTURE.md)",
                module.name()
            );
        }
    }
}

/// No file imports from a layer above its own ([`LAYERS`]; what a file imports: [`imports`]).
#[test]
fn no_file_imports_from_a_higher_layer() {
    let modules = modules();
    let files: BTreeMap<_, _> = modules
        .iter()
        .map(|module| (module.path.clone(), module.name()))
        .collect();
    let mut upward = Vec::new();
    for (from, imported) in import_graph(&modules) {
        let Some((from_place, from_layer)) = layer_of(&from) else {
            continue;
        };
        for to in imported {
            let Some((to_place, to_layer)) = layer_of(&to) else {
                continue;
            };
            if to_place > from_place {
                upward.push(format!(
                    "{} ({from_layer}) imports {} ({to_layer})",
                    files[&from], files[&to]
                ));
            }
        }
    }
    assert!(
        upward.is_empty(),
        "files import from a higher layer: move what both need down to the lower one, or hand \
         it in from above:\n{}",
        upward.join("\n")
    );
}
