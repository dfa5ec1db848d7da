//! The TypeScript client as its users get it: packed by `npm pack` (whose `prepack` builds
//! `dist/`), installed with `npm install <tarball>` into a fresh folder with its own
//! `package.json`, and used there by its name (`clients/typescript/test/consumer/`): a script run
//! against a real server, and a TypeScript file type-checked against the installed declarations
//! by the client's own `tsc`.
//!
//! Needs `npm ci --prefix clients/typescript` (CI's `.ci/run` does it) and the npm registry, from
//! which the package's own dependencies install.

use std::path::Path;
use std::process::Command;

use serde_json::Value;
use tempfile::TempDir;

use crate::client_kit::{NodeOutcome, client_dir, run_node};

/// How the type check resolves the package, as a game's build would.
#[derive(Debug, Clone, Copy)]
pub enum Resolution {
    /// Node's own (`moduleResolution: NodeNext`), the consumer's `tsconfig.json`.
    NodeNext,
    /// A bundler's (`moduleResolution: Bundler`), as browser games build.
    Bundler,
}

/// The packed client installed in a fresh folder of its own, removed when dropped.
pub struct InstalledPackage {
    folder: TempDir,
    packed: Vec<String>,
}

impl InstalledPackage {
    /// Packs the client into a temporary folder and installs the tarball into a fresh one with
    /// the consumer's files beside it.
    pub fn pack_and_install() -> Self {
        let client = client_dir();
        assert!(
            client.join("node_modules/typescript").is_dir(),
            "the TypeScript client's packages are missing: run `npm ci --prefix clients/typescript`"
        );
        let folder = tempfile::tempdir().expect("temporary directory");
        let tarballs = folder.path().join("tarballs");
        std::fs::create_dir(&tarballs).expect("the tarballs' folder");
        let packed = npm(
            &client,
            &["pack", "--json", "--pack-destination", utf8(&tarballs)],
        );
        let packed: Value = serde_json::from_str(&packed).expect("npm pack --json answers JSON");
        let tarball = tarballs.join(packed[0]["filename"].as_str().expect("the tarball's name"));
        let packed = packed[0]["files"]
            .as_array()
            .expect("the packed files")
            .iter()
            .map(|file| file["path"].as_str().expect("a path").to_owned())
            .collect();

        let game = folder.path().join("game");
        std::fs::create_dir(&game).expect("the fresh folder");
        std::fs::write(
            game.join("package.json"),
            r#"{ "name": "a-game", "private": true, "type": "module" }"#,
        )
        .expect("the fresh folder's package.json");
        npm(
            &game,
            &[
                "install",
                utf8(&tarball),
                "--no-audit",
                "--no-fund",
                "--prefer-offline",
            ],
        );
        for file in ["consumer.mjs", "consumer.ts", "tsconfig.json"] {
            std::fs::copy(client.join("test/consumer").join(file), game.join(file))
                .expect("the consumer's files");
        }
        Self { folder, packed }
    }

    /// The paths the tarball holds (`package.json`, `README.md`, `dist/index.js`, ...).
    pub fn packed_files(&self) -> &[String] {
        &self.packed
    }

    /// Runs the consumer script (`consumer.mjs`) against the server at `base`.
    pub async fn use_against(&self, base: &str) -> NodeOutcome {
        run_node(&self.game(), &["consumer.mjs", "--base", base]).await
    }

    /// Type-checks `consumer.ts` against the installed declarations (`tsc --noEmit`, resolved
    /// as `resolution` says): the compiler's messages when it fails.
    pub fn type_check(&self, resolution: Resolution) -> Result<(), String> {
        let tsc = client_dir().join("node_modules/typescript/bin/tsc");
        let mut command = Command::new("node");
        command.arg(tsc).args(["-p", "."]);
        if let Resolution::Bundler = resolution {
            command.args(["--module", "ESNext", "--moduleResolution", "Bundler"]);
        }
        let output = command
            .current_dir(self.game())
            .output()
            .expect("node runs tsc");
        if output.status.success() {
            Ok(())
        } else {
            Err(format!(
                "{}{}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            ))
        }
    }

    fn game(&self) -> std::path::PathBuf {
        self.folder.path().join("game")
    }
}

/// Runs `npm` with `args` in `dir`; its standard output, or a panic with what it said.
fn npm(dir: &Path, args: &[&str]) -> String {
    let output = Command::new("npm")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("npm runs (is Node.js installed?)");
    assert!(
        output.status.success(),
        "npm {} failed:\n{}{}",
        args.join(" "),
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    String::from_utf8(output.stdout).expect("npm writes UTF-8")
}

fn utf8(path: &Path) -> &str {
    path.to_str().expect("a UTF-8 path")
}
