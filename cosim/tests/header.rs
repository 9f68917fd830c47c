//! The checked-in C header must be exactly what cbindgen generates from the sources.

use std::path::PathBuf;

fn crate_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Generate the header text from `src/` with `cbindgen.toml`.
fn generate() -> String {
    let dir = crate_dir();
    let config = cbindgen::Config::from_file(dir.join("cbindgen.toml")).expect("cbindgen.toml");
    let bindings = cbindgen::Builder::new()
        .with_crate(&dir)
        .with_config(config)
        .generate()
        .expect("cbindgen failed to generate the header");
    let mut buf = Vec::new();
    bindings.write(&mut buf);
    String::from_utf8(buf).expect("header is UTF-8")
}

#[test]
fn header_is_fresh() {
    let path = crate_dir().join("include/dcfab.h");
    let fresh = generate();
    if std::env::var_os("DCFAB_BLESS").is_some() {
        std::fs::write(&path, &fresh).expect("write include/dcfab.h");
        eprintln!("wrote {}", path.display());
        return;
    }
    let current = std::fs::read_to_string(&path).unwrap_or_default();
    if current != fresh {
        let first = current
            .lines()
            .zip(fresh.lines())
            .position(|(a, b)| a != b)
            .unwrap_or(current.lines().count().min(fresh.lines().count()));
        panic!(
            "cosim/include/dcfab.h is stale (first difference at line {}).\n\
             Regenerate it with:\n    DCFAB_BLESS=1 cargo test -p dcfab-cosim --test header\n\
             and commit the result.",
            first + 1
        );
    }
}

#[test]
fn header_declares_the_core_api() {
    let h = generate();
    for needle in [
        "#define DCFAB_OK 0",
        "const char *dcfab_last_error(void);",
        "typedef struct DcfabTokenBucket DcfabTokenBucket;",
        "DcfabTokenBucket *dcfab_tb_new(const DcfabTokenBucketConfig *cfg);",
        "int32_t dcfab_tb_tick(DcfabTokenBucket *h);",
    ] {
        assert!(
            h.contains(needle),
            "generated header lacks `{needle}`:\n{h}"
        );
    }
}
