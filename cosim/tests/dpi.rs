//! `sv/dcfab_dpi.sv` must match `include/dcfab.h`: every DPI import names a header
//! function with the same arity, and each argument's SystemVerilog type and direction maps
//! to the C type per IEEE 1800 Annex H (2-state types only); the package's constants equal
//! the header's `#define`s; and every header function is imported unless it takes a C
//! config struct (DPI-C cannot pass one; each has a `*_new_flat` twin).

use std::collections::BTreeMap;
use std::path::PathBuf;

fn read(rel: &str) -> String {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(rel);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[derive(Debug, Clone)]
struct CFn {
    ret: String,
    params: Vec<String>, // C types, names stripped, spaces normalised ("const uint32_t *")
}

fn norm(s: &str) -> String {
    s.replace('*', " * ")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Split "type name" into the type (the last identifier is the name).
fn c_param_type(p: &str) -> String {
    let p = norm(p);
    let mut toks: Vec<&str> = p.split(' ').collect();
    if toks.len() > 1 && toks.last().is_some_and(|t| *t != "*") {
        toks.pop();
    }
    toks.join(" ")
}

fn strip_line_comments(s: &str) -> String {
    // Block comments first (they never nest in C or SV).
    let mut s = s.to_string();
    while let Some(a) = s.find("/*") {
        let b = s[a..].find("*/").map_or(s.len(), |b| a + b + 2);
        s.replace_range(a..b, " ");
    }
    s.lines()
        .map(|l| match l.find("//") {
            Some(i) => &l[..i],
            None => l,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn parse_header(h: &str) -> (BTreeMap<String, CFn>, BTreeMap<String, i64>) {
    let mut defines = BTreeMap::new();
    let mut body = String::new();
    for line in strip_line_comments(h).lines() {
        let t = line.trim();
        if let Some(rest) = t.strip_prefix("#define ") {
            let mut it = rest.split_whitespace();
            if let (Some(name), Some(val)) = (it.next(), it.next()) {
                let val = val.trim_matches(|c| c == '(' || c == ')');
                let val = val.trim_end_matches(['u', 'U', 'l', 'L']);
                if let Ok(v) = val.parse::<i64>() {
                    defines.insert(name.to_string(), v);
                } else if let Some(hex) = val.strip_prefix("0x") {
                    if let Ok(v) = u64::from_str_radix(hex, 16) {
                        defines.insert(name.to_string(), v as i64);
                    }
                }
            }
        } else if !t.starts_with('#') && !t.starts_with("/*") && !t.starts_with('*') {
            body.push_str(t);
            body.push(' ');
        }
    }
    let mut fns = BTreeMap::new();
    for stmt in body.split(';') {
        let stmt = match stmt.rfind(['{', '}']) {
            Some(i) => &stmt[i + 1..],
            None => stmt,
        };
        let (Some(open), Some(close)) = (stmt.find('('), stmt.rfind(')')) else {
            continue;
        };
        let head = norm(&stmt[..open]);
        let Some(name) = head.rsplit(' ').next().filter(|n| n.starts_with("dcfab_")) else {
            continue;
        };
        let ret = head[..head.len() - name.len()].trim().to_string();
        let args = stmt[open + 1..close].trim();
        let params = if args == "void" || args.is_empty() {
            vec![]
        } else {
            args.split(',').map(c_param_type).collect()
        };
        fns.insert(name.to_string(), CFn { ret, params });
    }
    (fns, defines)
}

#[derive(Debug)]
struct SvFn {
    ret: String,
    params: Vec<(String, String)>, // (direction, type)
}

fn parse_sv(sv: &str) -> (BTreeMap<String, SvFn>, BTreeMap<String, i64>, String) {
    let code = strip_line_comments(sv);
    let mut params = BTreeMap::new();
    let mut fns = BTreeMap::new();
    for stmt in code.split(';') {
        let s = norm(stmt);
        if let Some(rest) = s.strip_prefix("localparam ") {
            let (lhs, rhs) = rest.split_once('=').expect("localparam has a value");
            let name = lhs.split_whitespace().last().unwrap().to_string();
            params.insert(name, sv_int(rhs.trim()));
        }
        let Some(decl) = s.strip_prefix("import \"DPI-C\" function ") else {
            continue;
        };
        let open = decl.find('(').expect("import has a parameter list");
        let close = decl.rfind(')').expect("import has a parameter list");
        let head = decl[..open].trim();
        let (ret, name) = head.rsplit_once(' ').expect("return type and name");
        let args = decl[open + 1..close].trim();
        let ps = if args.is_empty() {
            vec![]
        } else {
            args.split(',')
                .map(|a| {
                    let mut toks: Vec<&str> = a.split_whitespace().collect();
                    toks.pop(); // the name
                    let dir = match toks.first() {
                        Some(&d) if matches!(d, "input" | "output" | "inout") => {
                            toks.remove(0);
                            d
                        }
                        _ => "input",
                    };
                    (dir.to_string(), toks.join(" "))
                })
                .collect()
        };
        fns.insert(
            name.to_string(),
            SvFn {
                ret: ret.to_string(),
                params: ps,
            },
        );
    }
    (fns, params, code)
}

/// An SV integer literal: `-3`, `42`, `64'd42`, `32'hFF`, `'h1_0000` (as i64 bits).
fn sv_int(lit: &str) -> i64 {
    let lit = lit.replace('_', "");
    let (neg, body) = match lit.strip_prefix('-') {
        Some(b) => (true, b.to_string()),
        None => (false, lit.clone()),
    };
    let v = match body.split_once('\'') {
        Some((_, based)) => {
            let (radix, digits) = based.split_at(1);
            let r = match radix {
                "d" | "D" => 10,
                "h" | "H" => 16,
                "b" | "B" => 2,
                _ => panic!("unsupported literal {lit}"),
            };
            u64::from_str_radix(digits, r).unwrap_or_else(|_| panic!("bad literal {lit}")) as i64
        }
        None => body
            .parse::<u64>()
            .unwrap_or_else(|_| panic!("bad literal {lit}")) as i64,
    };
    if neg {
        -v
    } else {
        v
    }
}

fn is_handle(c: &str) -> bool {
    c.starts_with("Dcfab") && c.ends_with(" *") && !c.contains("Config")
}

/// Does an SV argument (direction, type) map to C type `c`?
fn arg_matches(dir: &str, sv: &str, c: &str) -> bool {
    let scalar = |sv: &str| -> Option<&'static str> {
        Some(match sv {
            "int" => "int32_t",
            "int unsigned" => "uint32_t",
            "longint" => "int64_t",
            "longint unsigned" => "uint64_t",
            "bit" | "byte unsigned" => "uint8_t",
            _ => return None,
        })
    };
    let packed = sv.starts_with("bit [") && sv.ends_with(":0]");
    match dir {
        "input" => match sv {
            "chandle" => is_handle(c),
            "string" => c == "const char *",
            _ if packed => c == "const uint32_t *",
            _ => scalar(sv) == Some(c),
        },
        "output" | "inout" => match sv {
            "chandle" => c.starts_with("Dcfab") && c.ends_with(" * *"),
            _ if packed => c == "uint32_t *",
            _ => scalar(sv).is_some_and(|t| c == format!("{t} *")),
        },
        _ => false,
    }
}

fn ret_matches(sv: &str, c: &str) -> bool {
    match sv {
        "void" => c == "void",
        "chandle" => is_handle(c),
        "string" => c == "const char *",
        "int" => c == "int32_t",
        "int unsigned" => c == "uint32_t",
        "longint unsigned" => c == "uint64_t",
        "bit" => c == "uint8_t",
        _ => false,
    }
}

#[test]
fn dpi_imports_match_the_header() {
    let (cfns, defines) = parse_header(&read("include/dcfab.h"));
    let (svfns, svparams, code) = parse_sv(&read("sv/dcfab_dpi.sv"));
    assert!(
        cfns.len() >= 10,
        "parsed too few header functions: {cfns:?}"
    );
    assert!(svfns.len() >= 10, "parsed too few DPI imports: {svfns:?}");

    let mut problems = Vec::new();
    for (name, s) in &svfns {
        let Some(c) = cfns.get(name) else {
            problems.push(format!("{name}: imported in SV but not in dcfab.h"));
            continue;
        };
        if s.params.len() != c.params.len() {
            problems.push(format!(
                "{name}: arity {} in SV, {} in C",
                s.params.len(),
                c.params.len()
            ));
            continue;
        }
        if !ret_matches(&s.ret, &c.ret) {
            problems.push(format!(
                "{name}: returns `{}` in SV, `{}` in C",
                s.ret, c.ret
            ));
        }
        for (i, ((dir, ty), cty)) in s.params.iter().zip(&c.params).enumerate() {
            if !arg_matches(dir, ty, cty) {
                problems.push(format!(
                    "{name}: argument {i} is `{dir} {ty}` in SV, `{cty}` in C"
                ));
            }
        }
    }
    // Functions DPI-C cannot express: C structs, and the 25-byte REPS word as a C byte
    // array (its DPI form is dcfab_reps_{get,set}_word193 with bit [192:0]).
    const C_ONLY: [&str; 4] = [
        "dcfab_reps_get_word",
        "dcfab_reps_set_word",
        "dcfab_unocc_get_word",
        "dcfab_unocc_set_word",
    ];
    for (name, c) in &cfns {
        let c_only =
            c.params.iter().any(|p| p.contains("Config *")) || C_ONLY.contains(&name.as_str());
        if !c_only && !svfns.contains_key(name) {
            problems.push(format!(
                "{name}: in dcfab.h but not imported in sv/dcfab_dpi.sv"
            ));
        }
    }
    for (name, v) in &svparams {
        match defines.get(name) {
            Some(d) if d == v => {}
            other => problems.push(format!("localparam {name} = {v}, header has {other:?}")),
        }
    }
    for name in defines.keys() {
        if !svparams.contains_key(name) {
            problems.push(format!(
                "#define {name} has no localparam in the SV package"
            ));
        }
    }
    for four_state in ["logic", "reg", "integer", "wire", "time"] {
        if code
            .split(|c: char| !c.is_alphanumeric() && c != '_')
            .any(|w| w == four_state)
        {
            problems.push(format!("the package uses 4-state type `{four_state}`"));
        }
    }
    assert!(
        problems.is_empty(),
        "DPI package vs header:\n  {}",
        problems.join("\n  ")
    );
}

#[test]
fn the_checker_catches_mismatches() {
    let (cfns, _) = parse_header(
        "int32_t dcfab_x(DcfabFoo *h,\n    uint32_t n, uint8_t *out);\nconst char *dcfab_s(void);",
    );
    let c = &cfns["dcfab_x"];
    assert_eq!(c.params, ["DcfabFoo *", "uint32_t", "uint8_t *"]);
    assert!(ret_matches("int", &c.ret));
    assert!(ret_matches("string", &cfns["dcfab_s"].ret));
    assert!(arg_matches("input", "chandle", &c.params[0]));
    assert!(arg_matches("input", "int unsigned", &c.params[1]));
    assert!(!arg_matches("input", "longint unsigned", &c.params[1]));
    assert!(arg_matches("output", "bit", &c.params[2]));
    assert!(!arg_matches("input", "bit", &c.params[2]));
    assert!(arg_matches("input", "bit [192:0]", "const uint32_t *"));
    assert!(!arg_matches("output", "bit [192:0]", "const uint32_t *"));
    let (svfns, params, _) = parse_sv(
        "localparam int A = -3;\nimport \"DPI-C\" function int dcfab_x(input chandle h,\n  int unsigned n, output bit o);",
    );
    assert_eq!(params["A"], -3);
    assert_eq!(sv_int("64'd4611686018427387904"), 1 << 62);
    assert_eq!(sv_int("32'hFF"), 255);
    let s = &svfns["dcfab_x"];
    assert_eq!(
        s.params[1],
        ("input".to_string(), "int unsigned".to_string())
    );
    assert_eq!(s.params[2], ("output".to_string(), "bit".to_string()));
}
