//! `js:FILE[#EXPORT]`: node, and for TypeScript what lets node run it.
//!
//! node ≥ 22.6 strips types itself (behind `--experimental-strip-types` before 23.6); an
//! older node runs TypeScript through tsx's loader (`--import`), the tsx of the file's own
//! project (a `node_modules/.bin/tsx` above it) or else the one on `PATH`. JSX (`.tsx`,
//! `.jsx`) is tsx's alone.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use super::{Adapter, JS_RUNNER, Language, existing_file, on_path};
use crate::readers::error::ReaderError;

/// The first node that strips types, and the first that does so unasked.
const STRIPS: (u32, u32) = (22, 6);
const STRIPS_UNASKED: (u32, u32) = (23, 6);

/// How node is to run a TypeScript file.
#[derive(Debug, Clone, PartialEq, Eq)]
enum TypeScript {
    /// node strips the types (`flag`: it must be asked to).
    Strips { flag: bool },
    /// tsx's loader, at this path.
    Tsx(PathBuf),
}

pub(super) fn adapter(name: &str, body: &str) -> Result<Adapter, ReaderError> {
    // `FILE#EXPORT`, unless the whole is a file (a name with `#` in it).
    let (file, export) = match body.rsplit_once('#') {
        Some((file, export)) if !Path::new(body).is_file() => (file, export),
        _ => (body, ""),
    };
    let path = existing_file(name, file)?;
    let node = on_path("node").ok_or_else(|| ReaderError::NoProgram {
        name: name.to_owned(),
        target: file.to_owned(),
        program: "node".to_owned(),
        problem: "is not on PATH: js: readers run with node (18 or later)".to_owned(),
    })?;
    let mut args: Vec<OsString> = Vec::new();
    let mut via = None;
    let extension = path.extension().and_then(|e| e.to_str()).unwrap_or("");
    if matches!(extension, "ts" | "mts" | "cts" | "tsx" | "jsx") {
        let version = version(&node).map_err(|problem| ReaderError::NoProgram {
            name: name.to_owned(),
            target: file.to_owned(),
            program: node.display().to_string(),
            problem: problem.to_string(),
        })?;
        let jsx = matches!(extension, "tsx" | "jsx");
        let shown = format!("{}.{}.{}", version.0, version.1, version.2);
        match typescript((version.0, version.1), jsx, &path) {
            Some(TypeScript::Strips { flag }) => {
                if flag {
                    args.push("--experimental-strip-types".into());
                }
                // What node warns of on every run would fill the reader's log.
                args.push("--disable-warning=ExperimentalWarning".into());
                via = Some(format!("node {shown}'s type stripping"));
            }
            Some(TypeScript::Tsx(loader)) => {
                args.push("--import".into());
                args.push(file_url(&loader).into());
                via = Some(format!("tsx, {}", loader.display()));
            }
            None => {
                return Err(ReaderError::TypeScript { name: name.to_owned(), file: PathBuf::from(file), node: shown });
            }
        }
    }
    args.extend(["--input-type=module".into(), "-e".into(), JS_RUNNER.into(), "--".into()]);
    args.push(path.clone().into_os_string());
    args.push(export.into());
    Ok(Adapter {
        language: Language::JavaScript,
        target: file.to_owned(),
        file: Some(path),
        asked: (!export.is_empty()).then(|| export.to_owned()),
        spec_prefix: format!("js:{file}#"),
        via,
        program: node,
        args,
        called: None,
    })
}

/// How node `version` runs a TypeScript file at `path` (`jsx`: one with JSX in it).
fn typescript(version: (u32, u32), jsx: bool, path: &Path) -> Option<TypeScript> {
    if !jsx && version >= STRIPS {
        return Some(TypeScript::Strips { flag: version < STRIPS_UNASKED });
    }
    tsx_loader(path).map(TypeScript::Tsx)
}

/// Why node's version is not known.
#[derive(Debug, thiserror::Error)]
enum NoVersion {
    #[error("could not be run ({0})")]
    NotRun(std::io::Error),
    #[error("said its version is {0:?}")]
    Unread(String),
}

/// node's version, `(major, minor, patch)`.
fn version(node: &Path) -> Result<(u32, u32, u32), NoVersion> {
    let out = Command::new(node)
        .arg("--version")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .map_err(NoVersion::NotRun)?;
    let text = String::from_utf8_lossy(&out.stdout);
    parse_version(&text).ok_or_else(|| NoVersion::Unread(text.trim().to_owned()))
}

fn parse_version(text: &str) -> Option<(u32, u32, u32)> {
    let mut parts = text.trim().strip_prefix('v')?.splitn(3, '.');
    let mut next = || parts.next().and_then(|p| p.split(|c: char| !c.is_ascii_digit()).next()?.parse().ok());
    Some((next()?, next()?, next().unwrap_or(0)))
}

/// tsx's loader: the file's own project's (a `node_modules/.bin/tsx` in a directory above
/// it), else the one on `PATH`; the package is where the `tsx` executable really is.
fn tsx_loader(file: &Path) -> Option<PathBuf> {
    let local = file.ancestors().skip(1).map(|d| d.join("node_modules/.bin/tsx")).find(|p| p.exists());
    let bin = local.or_else(|| on_path("tsx"))?.canonicalize().ok()?;
    let package = bin.ancestors().skip(1).find(|d| is_tsx_package(d))?;
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(package.join("package.json")).ok()?).ok()?;
    // `exports["."]`: a path, or conditions naming one.
    let entry = match &manifest["exports"]["."] {
        serde_json::Value::String(s) => Some(s.clone()),
        serde_json::Value::Object(o) => {
            ["import", "default"].iter().find_map(|k| o.get(*k).and_then(|v| v.as_str()).map(str::to_owned))
        }
        _ => None,
    };
    let loader = package.join(entry.as_deref().unwrap_or("./dist/loader.mjs"));
    loader.is_file().then_some(loader)
}

fn is_tsx_package(dir: &Path) -> bool {
    let Ok(bytes) = std::fs::read(dir.join("package.json")) else { return false };
    serde_json::from_slice::<serde_json::Value>(&bytes).is_ok_and(|m| m["name"] == "tsx")
}

/// `path` as a `file:` URL, what `--import` takes: bytes other than unreserved ones and `/`
/// percent-encoded.
fn file_url(path: &Path) -> String {
    let mut url = String::from("file://");
    for &b in path.as_os_str().as_encoded_bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'/' | b'-' | b'_' | b'.' | b'~') {
            url.push(char::from(b));
        } else {
            url.push_str(&format!("%{b:02X}"));
        }
    }
    url
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_and_what_strips_types() {
        assert_eq!(parse_version("v20.20.2\n"), Some((20, 20, 2)));
        assert_eq!(parse_version("v23.6.0-nightly"), Some((23, 6, 0)));
        assert_eq!(parse_version("20.1.0"), None);
        let here = Path::new("/nonexistent/x.ts");
        assert_eq!(typescript((22, 6), false, here), Some(TypeScript::Strips { flag: true }));
        assert_eq!(typescript((23, 5), false, here), Some(TypeScript::Strips { flag: true }));
        assert_eq!(typescript((23, 6), false, here), Some(TypeScript::Strips { flag: false }));
        assert_eq!(typescript((24, 0), false, here), Some(TypeScript::Strips { flag: false }));
    }

    #[test]
    fn tsx_is_found_above_the_file_by_where_its_executable_really_is() {
        let dir = tempfile::tempdir().unwrap();
        let package = dir.path().join("node_modules/tsx");
        std::fs::create_dir_all(package.join("dist")).unwrap();
        std::fs::create_dir_all(dir.path().join("node_modules/.bin")).unwrap();
        std::fs::write(package.join("package.json"), r#"{"name":"tsx","exports":{".":"./dist/loader.mjs"}}"#).unwrap();
        std::fs::write(package.join("dist/loader.mjs"), "").unwrap();
        std::fs::write(package.join("dist/cli.mjs"), "").unwrap();
        #[cfg(unix)]
        std::os::unix::fs::symlink("../tsx/dist/cli.mjs", dir.path().join("node_modules/.bin/tsx")).unwrap();
        let file = dir.path().join("src/deep/x.ts");
        let loader = package.join("dist/loader.mjs").canonicalize().unwrap();
        assert_eq!(typescript((20, 11), false, &file), Some(TypeScript::Tsx(loader.clone())));
        assert_eq!(typescript((22, 6), true, &file), Some(TypeScript::Tsx(loader)), "JSX is tsx's");
    }

    #[test]
    fn file_urls() {
        assert_eq!(file_url(Path::new("/a b/é.mjs")), "file:///a%20b/%C3%A9.mjs");
    }
}
