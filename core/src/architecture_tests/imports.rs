//! What core's files import from each other.
//!
//! A file imports what it names through a path that begins with `crate::` (or `$crate::`),
//! `super::`, `self::` or the name of one of its own child modules, in a `use` or in its code;
//! comments and literals do not count. A path leads to the deepest module it names, and a name
//! that module re-exports (`pub use`) leads on to the module the re-export names: a file
//! reaching `super::ContentError` imports `content/error.rs`, which defines it, not
//! `content/mod.rs`, which only passes it on. A module reaching one of its ancestors' own items
//! (`super::Locate` defined in `content/mod.rs`) is nesting, not an import: the parent declares
//! its children and they stand on what it defines, so a parent and its child never make a
//! circle by being parent and child.

use std::collections::{BTreeMap, BTreeSet};

use super::sources::{Module, is_word};

/// A module's path below the crate root (`["content", "catalog"]`).
pub(super) type ModulePath = Vec<String>;

/// The modules each module imports from (never itself nor its ancestors), by module path.
pub(super) type ImportGraph = BTreeMap<ModulePath, BTreeSet<ModulePath>>;

/// The first segments of the paths `code` names under `prefix` (`crate::`, `super::`):
/// `crate::api::x` and `use crate::{api, store}` both name `api`.
pub(super) fn named_after(code: &str, prefix: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for (at, _) in code.match_indices(prefix) {
        let mut trees = Vec::new();
        parse_tree(code, &mut (at + prefix.len()), &[], &mut trees);
        names.extend(
            trees
                .into_iter()
                .filter_map(|tree| tree.segments.into_iter().next()),
        );
    }
    names
}

/// A path as a file names it: its segments, and the name it is imported as (`as name`).
struct NamedPath {
    segments: Vec<String>,
    alias: Option<String>,
}

/// Reads the path tree that starts at `at` in `text` (`a::b`, `a::{b, c::d as e}`, `a::*`)
/// after the segments `prefix`, adding each whole path to `out`, and moves `at` past it.
fn parse_tree(text: &str, at: &mut usize, prefix: &[String], out: &mut Vec<NamedPath>) {
    let mut segments = prefix.to_vec();
    loop {
        skip_space(text, at);
        let rest = &text[*at..];
        if rest.starts_with('{') {
            *at += 1;
            loop {
                skip_space(text, at);
                match text[*at..].chars().next() {
                    None => return,
                    Some('}') => {
                        *at += 1;
                        return;
                    }
                    Some(',') => *at += 1,
                    Some(_) => {
                        let before = *at;
                        parse_tree(text, at, &segments, out);
                        if *at == before {
                            *at += 1;
                        }
                    }
                }
            }
        }
        let word: String = if rest.starts_with('*') {
            "*".to_owned()
        } else {
            rest.chars().take_while(|c| is_word(*c)).collect()
        };
        if word.is_empty() {
            if segments.len() > prefix.len() {
                out.push(NamedPath {
                    segments,
                    alias: None,
                });
            }
            return;
        }
        *at += word.len();
        segments.push(word);
        if text[*at..].starts_with("::") && !text[*at + 2..].starts_with('<') {
            *at += 2;
            continue;
        }
        let mut after = *at;
        skip_space(text, &mut after);
        let alias = text[after..]
            .strip_prefix("as ")
            .map(|alias| alias.trim_start())
            .map(|alias| {
                alias
                    .chars()
                    .take_while(|c| is_word(*c))
                    .collect::<String>()
            })
            .filter(|alias| !alias.is_empty());
        if let Some(alias) = &alias {
            *at = after + text[after..].find(alias.as_str()).unwrap_or(0) + alias.len();
        }
        out.push(NamedPath { segments, alias });
        return;
    }
}

/// Moves `at` past white space.
fn skip_space(text: &str, at: &mut usize) {
    *at += text[*at..].len() - text[*at..].trim_start().len();
}

/// Every path `module` names from its own crate: those beginning with `crate`, `$crate`,
/// `super`, `self` or one of its children's names (not after `::` or `.`: `::http::` is the
/// `http` crate).
fn named_paths(module: &Module) -> Vec<NamedPath> {
    let bare = &module.bare;
    let mut paths = Vec::new();
    let mut at = 0;
    while at < bare.len() {
        let Some(character) = bare[at..].chars().next() else {
            break;
        };
        if !is_word(character) {
            at += character.len_utf8();
            continue;
        }
        let word: String = bare[at..].chars().take_while(|c| is_word(*c)).collect();
        let before = bare[..at].trim_end_matches('$').chars().next_back();
        let roots_a_path =
            matches!(word.as_str(), "crate" | "super" | "self") || module.children.contains(&word);
        if roots_a_path
            && bare[at + word.len()..].starts_with("::")
            && !before.is_some_and(|before| before == ':' || before == '.' || is_word(before))
        {
            let mut end = at;
            parse_tree(bare, &mut end, &[], &mut paths);
            at = end.max(at + word.len());
        } else {
            at += word.len();
        }
    }
    paths
}

/// The absolute module path of `segments` named in the module at `from` with `children`, or
/// `None` for another crate's path.
fn absolute(
    from: &[String],
    children: &BTreeSet<String>,
    segments: &[String],
) -> Option<ModulePath> {
    let (first, rest) = segments.split_first()?;
    let mut path: ModulePath = match first.as_str() {
        "crate" => Vec::new(),
        "self" => from.to_vec(),
        "super" => from[..from.len().checked_sub(1)?].to_vec(),
        child if children.contains(child) => {
            let mut path = from.to_vec();
            path.push(child.to_owned());
            path
        }
        _ => return None,
    };
    for segment in rest {
        match segment.as_str() {
            "super" => {
                path.pop()?;
            }
            "self" => {}
            "*" => break,
            name => path.push(name.to_owned()),
        }
    }
    Some(path)
}

/// Core's import graph: each module and the modules it imports from.
pub(super) fn import_graph(modules: &[Module]) -> ImportGraph {
    let known: BTreeSet<&ModulePath> = modules.iter().map(|module| &module.path).collect();
    let exports = re_exports(modules);
    let mut graph = ImportGraph::new();
    for module in modules {
        let imported = graph.entry(module.path.clone()).or_default();
        for named in named_paths(module) {
            let Some(path) = absolute(&module.path, &module.children, &named.segments) else {
                continue;
            };
            let target = defining_module(&known, &exports, &path);
            if !module.path.starts_with(&target) {
                imported.insert(target);
            }
        }
    }
    graph
}

/// What each module re-exports: `(module, name)` to the absolute path it passes on.
fn re_exports(modules: &[Module]) -> BTreeMap<(ModulePath, String), ModulePath> {
    let mut exports = BTreeMap::new();
    for module in modules {
        let bare = &module.bare;
        for (at, _) in bare.match_indices("use ") {
            let before = bare[..at].trim_end();
            let public = ["pub", "pub(crate)", "pub(super)"]
                .iter()
                .any(|visibility| before.ends_with(visibility));
            let starts_word = bare[..at]
                .chars()
                .next_back()
                .is_none_or(|before| !is_word(before));
            if !public || !starts_word {
                continue;
            }
            let mut trees = Vec::new();
            parse_tree(bare, &mut (at + "use ".len()), &[], &mut trees);
            for tree in trees {
                let Some(path) = absolute(&module.path, &module.children, &tree.segments) else {
                    continue;
                };
                let name = match (&tree.alias, tree.segments.last().map(String::as_str)) {
                    (Some(alias), _) => alias.clone(),
                    (None, Some("*") | None) => continue,
                    (None, Some("self")) => match path.last() {
                        Some(name) => name.clone(),
                        None => continue,
                    },
                    (None, Some(name)) => name.to_owned(),
                };
                exports.insert((module.path.clone(), name), path);
            }
        }
    }
    exports
}

/// The module that defines what `path` names: the deepest module on it, or, when that module
/// re-exports the name that follows, the module the re-export leads to.
fn defining_module(
    known: &BTreeSet<&ModulePath>,
    exports: &BTreeMap<(ModulePath, String), ModulePath>,
    path: &[String],
) -> ModulePath {
    let mut path = path.to_vec();
    for _ in 0..8 {
        let depth = (0..=path.len())
            .rev()
            .find(|depth| known.contains(&path[..*depth].to_vec()))
            .unwrap_or(0);
        let module = path[..depth].to_vec();
        match path
            .get(depth)
            .and_then(|name| exports.get(&(module.clone(), name.clone())))
        {
            Some(passed_on) if passed_on.as_slice() != path.as_slice() => {
                path = passed_on.clone();
            }
            _ => return module,
        }
    }
    path
}

/// The circles of `graph`: each set of two or more modules that import each other, directly
/// or through others (Tarjan's strongly connected components), in path order.
pub(super) fn circles(graph: &ImportGraph) -> Vec<BTreeSet<ModulePath>> {
    struct Search<'a> {
        graph: &'a ImportGraph,
        index: BTreeMap<&'a ModulePath, usize>,
        low: BTreeMap<&'a ModulePath, usize>,
        stack: Vec<&'a ModulePath>,
        on_stack: BTreeSet<&'a ModulePath>,
        found: Vec<BTreeSet<ModulePath>>,
    }

    impl<'a> Search<'a> {
        fn visit(&mut self, module: &'a ModulePath) {
            let number = self.index.len();
            self.index.insert(module, number);
            self.low.insert(module, number);
            self.stack.push(module);
            self.on_stack.insert(module);
            for next in self.graph.get(module).into_iter().flatten() {
                if !self.index.contains_key(next) {
                    self.visit(next);
                    let low = self.low[module].min(self.low[next]);
                    self.low.insert(module, low);
                } else if self.on_stack.contains(next) {
                    let low = self.low[module].min(self.index[next]);
                    self.low.insert(module, low);
                }
            }
            if self.low[module] == self.index[module] {
                let mut component = BTreeSet::new();
                while let Some(member) = self.stack.pop() {
                    self.on_stack.remove(member);
                    component.insert(member.clone());
                    if member == module {
                        break;
                    }
                }
                if component.len() > 1 {
                    self.found.push(component);
                }
            }
        }
    }

    let mut search = Search {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for module in graph.keys() {
        if !search.index.contains_key(module) {
            search.visit(module);
        }
    }
    search.found.sort();
    search.found
}
