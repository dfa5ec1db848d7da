//! Core's source files as the rules read them: the modules `lib.rs` declares, found the way the
//! compiler finds them, each without its test items (a `#[cfg(test)]` declaration, module or
//! function: tests may reach across layers to build what they check), and each also with its
//! comments and literals blanked out (what the code names, not what its words say).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The workspace's root folder.
pub(super) fn workspace() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("core sits in the workspace")
        .to_path_buf()
}

/// One of core's source files.
pub(super) struct Module {
    /// The file.
    pub(super) file: PathBuf,
    /// Its module path below the crate root: `["content", "catalog"]`; empty for `lib.rs`.
    pub(super) path: Vec<String>,
    /// Its code without test items.
    pub(super) code: String,
    /// [`Module::code`] with every comment and every string and character literal blanked out.
    pub(super) bare: String,
    /// Its child modules' names.
    pub(super) children: BTreeSet<String>,
}

impl Module {
    /// The file's path below `core/src`, as failures name it.
    pub(super) fn name(&self) -> String {
        let root = workspace().join("core/src");
        self.file
            .strip_prefix(&root)
            .unwrap_or(&self.file)
            .display()
            .to_string()
    }
}

/// Every module of core outside tests, from `lib.rs` down its `mod` declarations, in path
/// order.
pub(super) fn modules() -> Vec<Module> {
    let root = workspace().join("core/src");
    let mut found = Vec::new();
    let mut pending = vec![(root.join("lib.rs"), Vec::new(), root)];
    while let Some((file, path, folder)) = pending.pop() {
        let text = std::fs::read_to_string(&file).expect("a source file");
        let (code, bare) = without_tests(&text);
        let children = declared_modules(&bare);
        for child in &children {
            let (child_file, child_folder) = if folder.join(format!("{child}.rs")).is_file() {
                (folder.join(format!("{child}.rs")), folder.join(child))
            } else {
                (folder.join(child).join("mod.rs"), folder.join(child))
            };
            let mut child_path = path.clone();
            child_path.push(child.clone());
            pending.push((child_file, child_path, child_folder));
        }
        found.push(Module {
            file,
            path,
            code,
            bare,
            children,
        });
    }
    found.sort_by(|one, other| one.path.cmp(&other.path));
    found
}

/// Every module whose file is `root` or lies under it (a folder or one file of `core/src`),
/// with its code without test items.
pub(super) fn sources(root: &Path) -> Vec<(PathBuf, String)> {
    modules()
        .into_iter()
        .filter(|module| module.file.starts_with(root))
        .map(|module| (module.file, module.code))
        .collect()
}

/// `text` without its test items, as it is and with its comments and literals blanked out.
pub(super) fn without_tests(text: &str) -> (String, String) {
    let blanked = blank_out(text);
    let tests = test_items(&blanked);
    (without(text, &tests), without(&blanked, &tests))
}

/// The names of the file modules `bare` declares (`mod name;`, whatever its visibility and
/// attributes).
fn declared_modules(bare: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for (at, _) in bare.match_indices("mod ") {
        let starts_word = bare[..at]
            .chars()
            .next_back()
            .is_none_or(|before| !is_word(before));
        let rest = bare[at + "mod ".len()..].trim_start();
        let name: String = rest.chars().take_while(|c| is_word(*c)).collect();
        if starts_word && !name.is_empty() && rest[name.len()..].trim_start().starts_with(';') {
            names.insert(name);
        }
    }
    names
}

/// Whether `character` may be part of an identifier.
pub(super) fn is_word(character: char) -> bool {
    character.is_alphanumeric() || character == '_'
}

/// `text` without the byte ranges `cut`.
fn without(text: &str, cut: &[(usize, usize)]) -> String {
    let mut kept = String::new();
    let mut from = 0;
    for &(start, end) in cut {
        kept.push_str(&text[from..start]);
        from = end;
    }
    kept.push_str(&text[from..]);
    kept
}

/// The byte ranges of the items that `#[cfg(test)]` marks in `bare` (a file with its comments
/// and literals blanked out): from the attribute through the item's `;` or its block's closing
/// brace.
fn test_items(bare: &str) -> Vec<(usize, usize)> {
    let mut items = Vec::new();
    let mut from = 0;
    while let Some(found) = bare[from..].find("#[cfg(test)]") {
        let start = from + found;
        let mut depth = 0_usize;
        let mut end = bare.len();
        for (at, character) in bare[start..].char_indices() {
            match character {
                '{' => depth += 1,
                '}' if depth == 1 => {
                    end = start + at + 1;
                    break;
                }
                '}' => depth = depth.saturating_sub(1),
                ';' if depth == 0 => {
                    end = start + at + 1;
                    break;
                }
                _ => {}
            }
        }
        items.push((start, end));
        from = end;
    }
    items
}

/// `text` with every comment and the inside of every string and character literal replaced by
/// spaces (line ends kept), so that byte positions stay those of `text`.
fn blank_out(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = bytes.to_vec();
    let mut blank = |from: usize, to: usize| {
        for byte in &mut out[from..to] {
            if *byte != b'\n' {
                *byte = b' ';
            }
        }
    };
    let word_before =
        |at: usize| at > 0 && (bytes[at - 1].is_ascii_alphanumeric() || bytes[at - 1] == b'_');
    let mut at = 0;
    while at < bytes.len() {
        let rest = &bytes[at..];
        if rest.starts_with(b"//") {
            let end = rest
                .iter()
                .position(|byte| *byte == b'\n')
                .map_or(bytes.len(), |line_end| at + line_end);
            blank(at, end);
            at = end;
        } else if rest.starts_with(b"/*") {
            let end = block_comment_end(bytes, at);
            blank(at, end);
            at = end;
        } else if bytes[at] == b'"' {
            let end = string_end(bytes, at + 1);
            blank(at + 1, end.saturating_sub(1).max(at + 1));
            at = end;
        } else if bytes[at] == b'r'
            && (!word_before(at) || (bytes[at - 1] == b'b' && !word_before(at - 1)))
            && let Some(end) = raw_string_end(bytes, at + 1)
        {
            blank(at + 1, end);
            at = end;
        } else if bytes[at] == b'\'' {
            let end = char_literal_end(text, at).unwrap_or(at + 1);
            blank(at + 1, end.saturating_sub(1).max(at + 1));
            at = end;
        } else {
            at += 1;
        }
    }
    String::from_utf8(out).expect("only whole characters are blanked")
}

/// The end of the (nested) block comment opened at `start`.
fn block_comment_end(bytes: &[u8], start: usize) -> usize {
    let mut depth = 0_usize;
    let mut at = start;
    while at + 1 < bytes.len() {
        match &bytes[at..at + 2] {
            b"/*" => {
                depth += 1;
                at += 2;
            }
            b"*/" => {
                depth -= 1;
                at += 2;
                if depth == 0 {
                    return at;
                }
            }
            _ => at += 1,
        }
    }
    bytes.len()
}

/// The position after the closing quote of a string whose text starts at `from`.
fn string_end(bytes: &[u8], from: usize) -> usize {
    let mut at = from;
    while at < bytes.len() {
        match bytes[at] {
            b'\\' => at += 2,
            b'"' => return at + 1,
            _ => at += 1,
        }
    }
    bytes.len()
}

/// The position after a raw string whose `#`s or opening quote start at `from`, if one does
/// (`r#name` is a raw identifier, not a string).
fn raw_string_end(bytes: &[u8], from: usize) -> Option<usize> {
    let hashes = bytes[from..]
        .iter()
        .take_while(|byte| **byte == b'#')
        .count();
    if bytes.get(from + hashes) != Some(&b'"') {
        return None;
    }
    let mut closing = vec![b'"'];
    closing.extend(std::iter::repeat_n(b'#', hashes));
    let text = from + hashes + 1;
    let end = bytes[text..]
        .windows(closing.len())
        .position(|window| window == closing.as_slice())
        .map_or(bytes.len(), |found| text + found + closing.len());
    Some(end)
}

/// The position after a character literal opened at `start`, or `None` when the quote starts a
/// lifetime or a label.
fn char_literal_end(text: &str, start: usize) -> Option<usize> {
    let after = &text[start + 1..];
    let mut characters = after.char_indices();
    match characters.next()? {
        (_, '\\') => {
            let (at, escaped) = characters.next()?;
            let rest = at + escaped.len_utf8();
            let close = after[rest..].find('\'')?;
            Some(start + 1 + rest + close + 1)
        }
        (_, character) => after[character.len_utf8()..]
            .starts_with('\'')
            .then(|| start + 1 + character.len_utf8() + 1),
    }
}
