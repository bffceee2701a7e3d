//! `py:TARGET[:ATTR]`: a `.py` file or an importable module (`pkg.mod`), and a function or
//! `Class.method` in it, run with `python3` or the Python `$BRACEWALK_PYTHON` names.

use std::ffi::OsString;
use std::path::Path;

use super::{Adapter, Language, PY_RUNNER, existing_file, on_path};
use crate::readers::error::ReaderError;

/// The environment variable naming the Python to run.
pub const PYTHON_VAR: &str = "BRACEWALK_PYTHON";

pub(super) fn adapter(name: &str, spec: &str, body: &str) -> Result<Adapter, ReaderError> {
    let (target, attr) = split(body);
    let is_file = target.ends_with(".py") || target.contains('/') || Path::new(target).is_file();
    let (kind, loaded, file) = if is_file {
        let file = existing_file(name, target)?;
        ("file", file.clone().into_os_string(), Some(file))
    } else if target.split('.').all(is_identifier) {
        ("module", OsString::from(target), None)
    } else {
        return Err(ReaderError::BadSpec {
            name: name.to_owned(),
            spec: spec.to_owned(),
            problem: format!("{target:?} is neither a .py file nor a module's name (pkg.mod)"),
        });
    };
    if !attr.is_empty() && !attr.split('.').all(is_identifier) {
        return Err(ReaderError::BadSpec {
            name: name.to_owned(),
            spec: spec.to_owned(),
            problem: format!("{attr:?} is not a function's name or Class.method"),
        });
    }
    let (program, named) = match std::env::var(PYTHON_VAR) {
        Ok(p) if !p.is_empty() => (p, format!(" (${PYTHON_VAR})")),
        _ => ("python3".to_owned(), String::new()),
    };
    let path = on_path(&program).ok_or_else(|| ReaderError::NoProgram {
        name: name.to_owned(),
        target: target.to_owned(),
        program: format!("{program}{named}"),
        problem: format!("is not a program here: py: readers run with python3, or with the Python ${PYTHON_VAR} names"),
    })?;
    Ok(Adapter {
        language: Language::Python,
        target: target.to_owned(),
        file,
        asked: (!attr.is_empty()).then(|| attr.to_owned()),
        spec_prefix: format!("py:{target}:"),
        via: None,
        program: path,
        args: vec!["-B".into(), "-c".into(), PY_RUNNER.into(), kind.into(), loaded, attr.into()],
        called: None,
    })
}

/// `TARGET:ATTR` split at its last `:`, unless the whole is a file or what follows is no
/// attribute's name.
fn split(body: &str) -> (&str, &str) {
    match body.rsplit_once(':') {
        Some((target, attr)) if !Path::new(body).is_file() && attr.split('.').all(is_identifier) => (target, attr),
        _ => (body, ""),
    }
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    chars.next().is_some_and(|c| c == '_' || c.is_alphabetic()) && chars.all(|c| c == '_' || c.is_alphanumeric())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_and_attributes() {
        assert_eq!(split("x.py"), ("x.py", ""));
        assert_eq!(split("x.py:extract"), ("x.py", "extract"));
        assert_eq!(split("pkg.mod:Parser.parse"), ("pkg.mod", "Parser.parse"));
        assert_eq!(split("pkg.mod"), ("pkg.mod", ""));
        assert!(is_identifier("_x1") && is_identifier("é") && !is_identifier("1x") && !is_identifier(""));
        let e = adapter("mine", "py:not a module", "not a module").unwrap_err();
        assert!(e.to_string().contains("neither a .py file nor a module's name"), "{e}");
    }
}
