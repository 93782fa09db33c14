//! Reference call edges from a SCIP index: a reference to a function or method defined in the
//! corpus, inside a function or method body, immediately followed by `(` in the source text.
//! A function is its qualified name within its file: overload signatures, the implementation and
//! conditional redefinitions of one name are one function, on both sides of the benchmark.

use std::collections::{BTreeMap, HashMap, HashSet};

use scip::types::occurrence::{Typed_enclosing_range, Typed_range};
use scip::types::{Index, Occurrence, PositionEncoding, SymbolRole, descriptor::Suffix};

/// A definition, identified as both sides identify it: its file and the 1-based line of its name.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Site {
    pub path: String,
    pub line: u32,
}

impl Site {
    pub fn new(path: &str, line: u32) -> Self {
        Self {
            path: path.to_owned(),
            line,
        }
    }
}

impl std::fmt::Display for Site {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.path, self.line)
    }
}

/// Where a call is written: file, 1-based line, byte column of the callee's name in that line.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CallPlace {
    pub path: String,
    pub line: u32,
    pub column: usize,
}

/// A function or method the index defines: its name, for a method its type's name, and its
/// qualified name within its file (`Type.method`, `outer.inner`; no module or namespace).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Callable {
    pub name: String,
    pub owner: Option<String>,
    pub qualified: String,
}

/// Function and method bodies per file as line spans, to find the function a call sits in.
#[derive(Debug, Default, Clone)]
pub struct Extents {
    spans: HashMap<String, Vec<(u32, u32, Site)>>,
}

impl Extents {
    /// Adds the body of the definition at `site`, lines `start..=end` (1-based).
    pub fn insert(&mut self, site: Site, start: u32, end: u32) {
        self.spans
            .entry(site.path.clone())
            .or_default()
            .push((start, end, site));
    }

    /// The innermost body containing `line` of `path` whose definition `accept` admits.
    pub fn innermost(
        &self,
        path: &str,
        line: u32,
        accept: impl Fn(&Site) -> bool,
    ) -> Option<&Site> {
        self.spans
            .get(path)?
            .iter()
            .filter(|(start, end, site)| *start <= line && line <= *end && accept(site))
            .min_by_key(|(start, end, _)| end - start)
            .map(|(_, _, site)| site)
    }

    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// The body of the definition at `site`, if it has one here.
    pub fn span(&self, site: &Site) -> Option<(u32, u32)> {
        self.spans
            .get(&site.path)?
            .iter()
            .find(|(_, _, s)| s == site)
            .map(|&(start, end, _)| (start, end))
    }
}

/// The reference call graph.
#[derive(Debug, Default)]
pub struct Reference {
    /// (caller, callee) → the first place the call is written.
    pub edges: BTreeMap<(Site, Site), CallPlace>,
    /// Every function and method the index defines.
    pub callables: HashMap<Site, Callable>,
    /// Paths of the indexed documents.
    pub paths: HashSet<String>,
    /// The function and method bodies the edges were attributed with.
    pub bodies: Extents,
    /// Each definition's site → the site that stands for its (file, qualified name): the first
    /// definition with a body, else the first one. Edges are between such sites only.
    pub canonical: HashMap<Site, Site>,
    /// (file, qualified name) → the site that stands for it.
    pub by_name: HashMap<(String, String), Site>,
    /// Definitions merged into another of the same qualified name (overload signatures,
    /// conditional redefinitions).
    pub merged: usize,
}

impl Reference {
    /// The function or method of the reference whose body holds a definition written at `site`:
    /// the site itself when the reference defines it, else the innermost reference callable
    /// around it (a local `const f = () => …` is part of its method's body for the reference).
    pub fn caller_at(&self, site: &Site) -> Option<&Site> {
        if let Some((known, _)) = self.callables.get_key_value(site) {
            return Some(known);
        }
        self.bodies.innermost(&site.path, site.line, |s| {
            s.line < site.line && self.callables.contains_key(s)
        })
    }

    /// The site that stands for a function of the other side, written at `site` with the
    /// qualified name `qualified`: the reference's own when it defines something there or by that
    /// name in that file, else `None`.
    pub fn identify(&self, site: &Site, qualified: &str) -> Option<&Site> {
        self.canonical
            .get(site)
            .or_else(|| self.by_name.get(&(site.path.clone(), qualified.to_owned())))
    }
}

/// A SCIP range as (start line, start column, end line, end column), 0-based.
fn range_of(typed: Option<&Typed_range>, raw: &[i32]) -> Option<(u32, u32, u32, u32)> {
    let parts: Vec<i32> = match typed {
        Some(Typed_range::SingleLineRange(r)) => {
            vec![r.line, r.start_character, r.line, r.end_character]
        }
        Some(Typed_range::MultiLineRange(r)) => {
            vec![r.start_line, r.start_character, r.end_line, r.end_character]
        }
        Some(_) => return None,
        None => match raw {
            [line, start, end] => vec![*line, *start, *line, *end],
            [sl, sc, el, ec] => vec![*sl, *sc, *el, *ec],
            _ => return None,
        },
    };
    let mut out = [0u32; 4];
    for (slot, value) in out.iter_mut().zip(parts) {
        *slot = u32::try_from(value).ok()?;
    }
    Some((out[0], out[1], out[2], out[3]))
}

fn enclosing_of(occurrence: &Occurrence) -> Option<(u32, u32)> {
    let (start, end) = match &occurrence.typed_enclosing_range {
        Some(Typed_enclosing_range::SingleLineEnclosingRange(r)) => (r.line, r.line),
        Some(Typed_enclosing_range::MultiLineEnclosingRange(r)) => (r.start_line, r.end_line),
        Some(_) => return None,
        None => match occurrence.enclosing_range.as_slice() {
            [line, _, _] => (*line, *line),
            [start, _, end, _] => (*start, *end),
            _ => return None,
        },
    };
    Some((u32::try_from(start).ok()? + 1, u32::try_from(end).ok()? + 1))
}

/// A type name as the source writes it without generics: `` `Core<T, S>` `` → `Core`.
fn bare_type(name: &str) -> &str {
    let name = name.trim_matches('`');
    name.split(['<', ' ']).next().unwrap_or(name)
}

/// The name, owning type and qualified name of a function or method symbol; `None` for anything
/// else. Modules and namespaces are not part of the qualified name; a Rust `impl#[Type][Trait]`
/// block stands for its self type.
pub fn callable_of(symbol: &str) -> Option<Callable> {
    callable_or_const(symbol, false)
}

/// As `callable_of`, and with `consts` also a module- or namespace-level term (a `const f =
/// (…) => …` holds a function: the caller checks the source says so).
fn callable_or_const(symbol: &str, consts: bool) -> Option<Callable> {
    let parsed = scip::symbol::parse_symbol(symbol).ok()?;
    let (last, before) = parsed.descriptors.split_last()?;
    match last.suffix.enum_value().ok()? {
        Suffix::Method => {}
        Suffix::Term
            if consts
                && before.iter().all(|d| {
                    matches!(
                        d.suffix.enum_value().ok(),
                        Some(Suffix::Namespace | Suffix::Package)
                    )
                }) => {}
        _ => return None,
    }
    let mut parts: Vec<&str> = Vec::new();
    let mut owner = None;
    let mut descriptors = before.iter().peekable();
    while let Some(d) = descriptors.next() {
        match d.suffix.enum_value().ok() {
            Some(Suffix::Type) if d.name == "impl" => {
                let self_type = descriptors
                    .next_if(|p| p.suffix.enum_value().ok() == Some(Suffix::TypeParameter))
                    .map(|p| bare_type(&p.name));
                while descriptors
                    .next_if(|p| p.suffix.enum_value().ok() == Some(Suffix::TypeParameter))
                    .is_some()
                {}
                if let Some(ty) = self_type {
                    parts.push(ty);
                    owner = Some(ty.to_owned());
                }
            }
            Some(Suffix::Type) => {
                parts.push(&d.name);
                owner = Some(d.name.clone());
            }
            Some(Suffix::Term | Suffix::Method) => {
                parts.push(&d.name);
                owner = None;
            }
            _ => {}
        }
    }
    // scip-typescript names constructors `<constructor>`; the source says `constructor`.
    let name = match last.name.as_str() {
        "<constructor>" => "constructor".to_owned(),
        other => other.to_owned(),
    };
    parts.push(&name);
    let qualified = parts.join(".");
    Some(Callable {
        name,
        owner,
        qualified,
    })
}

/// Byte offset of a SCIP column in a line, given the index's position encoding.
pub fn byte_column(line: &str, column: u32, encoding: PositionEncoding) -> Option<usize> {
    let column = column as usize;
    match encoding {
        PositionEncoding::UTF8CodeUnitOffsetFromLineStart => {
            line.is_char_boundary(column).then_some(column)
        }
        PositionEncoding::UTF32CodeUnitOffsetFromLineStart => line
            .char_indices()
            .map(|(i, _)| i)
            .chain([line.len()])
            .nth(column),
        // JavaScript-based indexers (both used here) count UTF-16 code units.
        PositionEncoding::UTF16CodeUnitOffsetFromLineStart
        | PositionEncoding::UnspecifiedPositionEncoding => {
            let mut units = 0;
            for (i, c) in line.char_indices() {
                if units == column {
                    return Some(i);
                }
                units += c.len_utf16();
            }
            (units == column).then_some(line.len())
        }
    }
}

/// Whether the text after a declared name gives it a function: `= (…) =>`, `= async x =>`,
/// `= <T>(…): R =>`, `= function`, after an optional type annotation. The text may run over
/// several lines.
fn holds_function(after: &str) -> bool {
    let mut rest = after.trim_start();
    if let Some(annotated) = rest.strip_prefix(':') {
        // Up to the `=` of the initializer (not an `=>` inside a function type).
        let bytes = annotated.as_bytes();
        let mut depth = 0i32;
        let mut at = None;
        for (i, &b) in bytes.iter().enumerate() {
            match b {
                b'(' | b'[' | b'{' | b'<' => depth += 1,
                b')' | b']' | b'}' => depth -= 1,
                b'>' if i == 0 || bytes[i - 1] != b'=' => depth -= 1,
                b'=' if depth == 0 && bytes.get(i + 1) != Some(&b'>') => {
                    at = Some(i);
                    break;
                }
                b';' | b'\n' if depth == 0 => return false,
                _ => {}
            }
        }
        let Some(at) = at else { return false };
        rest = &annotated[at..];
    }
    let Some(value) = rest.strip_prefix('=') else {
        return false;
    };
    if value.starts_with(['=', '>']) {
        return false;
    }
    let mut value = value.trim_start();
    if let Some(after_async) = value.strip_prefix("async") {
        value = after_async.trim_start();
    }
    if value.starts_with("function") {
        return true;
    }
    let word_end = value
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '$'))
        .unwrap_or(value.len());
    if word_end > 0 {
        return value[word_end..].trim_start().starts_with("=>");
    }
    // `<T>(…)` or `(…)`: the closing parenthesis, then `=>` or a return type.
    if value.starts_with('<') {
        let Some(close) = matching(value, b'<', b'>') else {
            return false;
        };
        value = value[close + 1..].trim_start();
    }
    if !value.starts_with('(') {
        return false;
    }
    let Some(close) = matching(value, b'(', b')') else {
        return false;
    };
    let after_params = value[close + 1..].trim_start();
    after_params.starts_with("=>") || after_params.starts_with(':')
}

/// The byte index of the bracket closing the one `text` starts with.
fn matching(text: &str, open: u8, close: u8) -> Option<usize> {
    let mut depth = 0usize;
    for (i, &b) in text.as_bytes().iter().enumerate() {
        if b == open {
            depth += 1;
        } else if b == close && (close != b'>' || i == 0 || text.as_bytes()[i - 1] != b'=') {
            depth = depth.checked_sub(1)?;
            if depth == 0 {
                return Some(i);
            }
        }
    }
    None
}

/// Whether the text after a name opens a call of it: `(`, or type arguments first
/// (`new Box<T>(`, `f::<T>(`, `<(x: A) => B>(`).
fn opens_call(rest: &str) -> bool {
    let args = match rest.strip_prefix("::") {
        Some(after) if after.starts_with('<') => after,
        Some(_) => return false,
        None => rest,
    };
    if !args.starts_with('<') {
        return args.starts_with('(');
    }
    let mut depth = 0usize;
    let mut previous = 0u8;
    for (i, b) in args.bytes().enumerate() {
        match b {
            b'<' => depth += 1,
            b'>' if previous != b'=' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return args
                        .get(i + 1..)
                        .is_some_and(|after| after.starts_with('('));
                }
            }
            _ => {}
        }
        previous = b;
    }
    false
}

/// Whether the text before a name ends with a keyword that declares it (`def`, `function`):
/// a second `def f(` of the same name in another branch is a definition, not a call, even when
/// the indexer records it as a reference to the first.
fn follows_declaration_keyword(before: &str) -> bool {
    let last_word = before
        .trim_end()
        .rsplit(|c: char| !(c.is_alphanumeric() || c == '_'))
        .next()
        .unwrap_or("");
    before.ends_with(|c: char| c.is_whitespace())
        && matches!(last_word, "def" | "function" | "class")
}

/// Source text by document path; a document without text is skipped.
pub type Texts<'a> = dyn Fn(&str) -> Option<&'a str> + 'a;

/// Derives the reference call edges. Bodies come from the index's enclosing ranges when it has
/// them, else from `fallback` (spans of the syntax tree); either way a caller must be a function
/// or method the index defines.
pub fn derive(index: &Index, texts: &Texts<'_>, fallback: &Extents) -> (Reference, bool) {
    let mut reference = Reference::default();
    // Per (file, qualified name): its definitions, each with whether it has a body.
    let mut definitions_of: HashMap<(String, String), Vec<(Site, bool)>> = HashMap::new();
    // Per symbol: the (file, qualified name) of its definitions.
    let mut name_of: HashMap<&str, (String, String)> = HashMap::new();
    let mut own_extents = Extents::default();
    for doc in &index.documents {
        reference.paths.insert(doc.relative_path.clone());
        let text = texts(&doc.relative_path).unwrap_or("");
        let lines: Vec<&str> = text.lines().collect();
        // Byte offset of each line's start, to read past the end of a line.
        let mut line_starts = vec![0usize];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        let encoding = doc
            .position_encoding
            .enum_value()
            .unwrap_or(PositionEncoding::UnspecifiedPositionEncoding);
        for occ in &doc.occurrences {
            if occ.symbol_roles & SymbolRole::Definition as i32 == 0 {
                continue;
            }
            let Some((line, _, end_line, end)) = range_of(occ.typed_range.as_ref(), &occ.range)
            else {
                continue;
            };
            let site = Site::new(&doc.relative_path, line + 1);
            let mut const_function = false;
            let callable = match callable_of(&occ.symbol) {
                Some(c) => c,
                None => {
                    // A `const f = (…) => …`: a function as the engine and the source see it.
                    let after = lines
                        .get(end_line as usize)
                        .and_then(|l| byte_column(l, end, encoding))
                        .and_then(|c| text.get(line_starts.get(end_line as usize)? + c..));
                    match after
                        .filter(|a| holds_function(a))
                        .and_then(|_| callable_or_const(&occ.symbol, true))
                    {
                        Some(c) => {
                            const_function = true;
                            c
                        }
                        None => continue,
                    }
                }
            };
            let extent = enclosing_of(occ)
                .or_else(|| const_function.then(|| fallback.span(&site)).flatten());
            if let Some((start, end)) = extent {
                own_extents.insert(site.clone(), start, end);
            }
            // A declaration without a body (an overload signature, an interface method) ends
            // with `;` or has no extent.
            let has_body = extent.is_some_and(|(_, end)| {
                lines
                    .get(end as usize - 1)
                    .is_some_and(|l| !l.trim_end().ends_with(';'))
            });
            let key = (doc.relative_path.clone(), callable.qualified.clone());
            name_of
                .entry(occ.symbol.as_str())
                .or_insert_with(|| key.clone());
            let sites = definitions_of.entry(key).or_default();
            if !sites.iter().any(|(s, _)| *s == site) {
                sites.push((site.clone(), has_body));
            }
            reference.callables.insert(site, callable);
        }
    }
    // One definition stands for each (file, qualified name): the first with a body, else the
    // first written. Overloads, their implementation and conditional redefinitions are one.
    for (key, mut sites) in definitions_of {
        sites.sort();
        let Some(chosen) = sites
            .iter()
            .find(|(_, body)| *body)
            .or(sites.first())
            .map(|(s, _)| s.clone())
        else {
            continue;
        };
        reference.merged += sites.len() - 1;
        for (site, _) in sites {
            reference.canonical.insert(site, chosen.clone());
        }
        reference.by_name.insert(key, chosen);
    }
    let symbol_site: HashMap<&str, Site> = name_of
        .into_iter()
        .filter_map(|(symbol, key)| Some((symbol, reference.by_name.get(&key)?.clone())))
        .collect();
    let use_own = !own_extents.is_empty();
    reference.bodies = if use_own {
        own_extents
    } else {
        fallback.clone()
    };
    let extents = &reference.bodies;
    for doc in &index.documents {
        let Some(text) = texts(&doc.relative_path) else {
            continue;
        };
        let lines: Vec<&str> = text.lines().collect();
        // Positions of definitions: a reference written at a definition's name (a decorated
        // `def inner(`) is not a call.
        let definitions: HashSet<(u32, u32)> = doc
            .occurrences
            .iter()
            .filter(|o| o.symbol_roles & SymbolRole::Definition as i32 != 0)
            .filter_map(|o| range_of(o.typed_range.as_ref(), &o.range).map(|(l, c, ..)| (l, c)))
            .collect();
        let encoding = doc
            .position_encoding
            .enum_value()
            .unwrap_or(PositionEncoding::UnspecifiedPositionEncoding);
        // C, C++ and C# code often writes a space between a function's name and its arguments
        // (`f (x)`, Mono's style).
        let spaced = ["c", "cpp", "csharp"]
            .iter()
            .any(|l| doc.language.eq_ignore_ascii_case(l));
        // Ruby and Scala call without parentheses (`items.size`, `log "x"`, `xs.head`, `a max b`);
        // their oracles list calls only.
        let unparenthesised = ["ruby", "scala"]
            .iter()
            .any(|l| doc.language.eq_ignore_ascii_case(l));
        for occ in &doc.occurrences {
            if occ.symbol_roles & SymbolRole::Definition as i32 != 0 {
                continue;
            }
            let Some(callee) = symbol_site.get(occ.symbol.as_str()) else {
                continue;
            };
            let Some((line, start, end_line, end)) = range_of(occ.typed_range.as_ref(), &occ.range)
            else {
                continue;
            };
            let Some(source_line) = lines.get(line as usize) else {
                continue;
            };
            let followed_by_paren = unparenthesised
                || end_line == line
                    && byte_column(source_line, end, encoding)
                        .and_then(|i| source_line.get(i..))
                        .is_some_and(|rest| {
                            opens_call(rest) || (spaced && opens_call(rest.trim_start()))
                        });
            let declared = byte_column(source_line, start, encoding)
                .and_then(|i| source_line.get(..i))
                .is_some_and(follows_declaration_keyword);
            if !followed_by_paren || declared || definitions.contains(&(line, start)) {
                continue;
            }
            // A body starts at its name's line: decorators above it are not inside it.
            let Some(caller) = extents
                .innermost(&doc.relative_path, line + 1, |s| {
                    s.line <= line + 1 && reference.callables.contains_key(s)
                })
                .and_then(|s| reference.canonical.get(s))
            else {
                continue;
            };
            let place = CallPlace {
                path: doc.relative_path.clone(),
                line: line + 1,
                column: byte_column(source_line, start, encoding).unwrap_or(0),
            };
            reference
                .edges
                .entry((caller.clone(), callee.clone()))
                .or_insert(place);
        }
    }
    (reference, use_own)
}

#[cfg(test)]
mod tests {
    use super::*;
    use scip::types::Document;

    fn occurrence(
        symbol: &str,
        range: [i32; 3],
        definition: bool,
        body: Option<[i32; 4]>,
    ) -> Occurrence {
        let mut occ = Occurrence::new();
        occ.symbol = symbol.to_owned();
        occ.range = range.to_vec();
        if definition {
            occ.symbol_roles = SymbolRole::Definition as i32;
        }
        if let Some(body) = body {
            occ.enclosing_range = body.to_vec();
        }
        occ
    }

    #[test]
    fn a_call_may_pass_type_arguments_before_its_arguments() {
        assert!(opens_call("(1)"));
        assert!(opens_call("<T>(value)"));
        assert!(opens_call("<Map<K, V[]>>()"));
        assert!(opens_call("<(x: A) => B>(f)"));
        assert!(opens_call("::<Vec<_>>()"));
        assert!(!opens_call(" (1)"));
        assert!(!opens_call("<T>"));
        assert!(!opens_call("::new()"));
        assert!(!opens_call(".then(f)"));
        assert!(!opens_call("<T> = x"));
    }

    const RUN: &str = "scip-python python demo 1.0 app/Job#run().";
    const STEP: &str = "scip-python python demo 1.0 app/Job#step().";
    const HELPER: &str = "scip-python python demo 1.0 app/helper().";
    const JOB: &str = "scip-python python demo 1.0 app/Job#";
    const DECORATED: &str = "scip-python python demo 1.0 app/decorated().";

    const SOURCE: &str = "class Job:\n    def run(self):\n        self.step()\n        f = self.step\n        return helper (1) or Job()\n\n    def step(self):\n        return helper(2)\n\ndef helper(x):\n    return x\n\nhelper(3)\n@helper(4)\ndef decorated():\n    pass\n";

    fn demo_index(with_bodies: bool) -> Index {
        let body = |a: i32, b: i32| with_bodies.then_some([a, 4, b, 0]);
        let mut doc = Document::new();
        doc.relative_path = "app.py".into();
        doc.occurrences = vec![
            occurrence(JOB, [0, 6, 9], true, None),
            occurrence(RUN, [1, 8, 11], true, body(1, 4)),
            occurrence(STEP, [2, 13, 17], false, None),
            occurrence(STEP, [3, 17, 21], false, None),
            occurrence(HELPER, [4, 15, 21], false, None),
            occurrence(JOB, [4, 29, 32], false, None),
            occurrence(STEP, [6, 8, 12], true, body(6, 7)),
            occurrence(HELPER, [7, 15, 21], false, None),
            occurrence(HELPER, [9, 4, 10], true, body(9, 10)),
            occurrence(HELPER, [12, 0, 6], false, None),
            occurrence(HELPER, [13, 1, 7], false, None),
            occurrence(
                DECORATED,
                [14, 4, 13],
                true,
                with_bodies.then_some([13, 0, 15, 8]),
            ),
            occurrence(HELPER, [14, 4, 13], false, None),
        ];
        let mut index = Index::new();
        index.documents = vec![doc];
        index
    }

    fn edges(reference: &Reference) -> Vec<(String, String)> {
        reference
            .edges
            .keys()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect()
    }

    #[test]
    fn calls_need_a_paren_right_after_the_name_and_a_function_around_them() {
        let texts = |_: &str| Some(SOURCE);
        let (reference, own) = derive(&demo_index(true), &texts, &Extents::default());
        assert!(own);
        // `self.step` without a call, `helper (1)`, `Job()` (a class) and the module-level
        // `helper(3)` are not reference edges; nor are the decorator above `decorated` and a
        // reference written where a definition's name stands.
        assert_eq!(
            edges(&reference),
            vec![
                ("app.py:2".to_owned(), "app.py:7".to_owned()),
                ("app.py:7".to_owned(), "app.py:10".to_owned()),
            ]
        );
        assert_eq!(
            reference.callables.get(&Site::new("app.py", 2)),
            Some(&Callable {
                name: "run".into(),
                owner: Some("Job".into()),
                qualified: "Job.run".into(),
            })
        );
    }

    #[test]
    fn bodies_come_from_the_fallback_when_the_index_has_none() {
        let texts = |_: &str| Some(SOURCE);
        let mut fallback = Extents::default();
        fallback.insert(Site::new("app.py", 1), 1, 8);
        fallback.insert(Site::new("app.py", 2), 2, 5);
        fallback.insert(Site::new("app.py", 7), 7, 8);
        let (reference, own) = derive(&demo_index(false), &texts, &fallback);
        assert!(!own);
        // Line 1 (the class) is not a function the index defines, so it is never a caller.
        assert_eq!(reference.edges.len(), 2);
    }

    #[test]
    fn utf16_columns_map_to_bytes() {
        let line = "é𝄞x(";
        assert_eq!(
            byte_column(line, 3, PositionEncoding::UTF16CodeUnitOffsetFromLineStart),
            Some(6)
        );
        assert_eq!(
            byte_column(line, 2, PositionEncoding::UTF16CodeUnitOffsetFromLineStart),
            None
        );
        assert_eq!(
            byte_column(line, 7, PositionEncoding::UTF8CodeUnitOffsetFromLineStart),
            Some(7)
        );
        assert_eq!(callable_of("not a symbol"), None);
        assert_eq!(callable_of(JOB), None);
    }

    #[test]
    fn qualified_names_leave_out_modules_and_name_an_impl_by_its_self_type() {
        let qualified = |symbol: &str| callable_of(symbol).map(|c| (c.qualified, c.owner));
        assert_eq!(
            qualified("scip-python python demo 1.0 `app.models`/Outer#Inner#run()."),
            Some(("Outer.Inner.run".into(), Some("Inner".into())))
        );
        assert_eq!(
            qualified("scip-python python demo 1.0 app/outer().inner()."),
            Some(("outer.inner".into(), None))
        );
        assert_eq!(
            qualified(
                "rust-analyzer cargo tokio 1.41.1 runtime/task/core/impl#[`Core<T, S>`]set_stage()."
            ),
            Some(("Core.set_stage".into(), Some("Core".into())))
        );
        assert_eq!(
            qualified(
                "rust-analyzer cargo tokio 1.41.1 sync/mpsc/error/impl#[RecvError][Display]fmt()."
            ),
            Some(("RecvError.fmt".into(), Some("RecvError".into())))
        );
        assert_eq!(
            qualified("scip-typescript npm demo 1.0 `src/a.ts`/Box#`<constructor>`()."),
            Some(("Box.constructor".into(), Some("Box".into())))
        );
    }
    #[test]
    fn a_name_after_def_or_function_is_declared_not_called() {
        assert!(follows_declaration_keyword("            def "));
        assert!(follows_declaration_keyword("    async def "));
        assert!(follows_declaration_keyword("export function "));
        assert!(!follows_declaration_keyword("    undefined_value = "));
        assert!(!follows_declaration_keyword("    return "));
        assert!(!follows_declaration_keyword("    x = obj.def"));
        assert!(!follows_declaration_keyword(""));
    }

    #[test]
    fn a_local_function_is_attributed_to_the_reference_callable_around_it() {
        let texts = |_: &str| Some(SOURCE);
        let (reference, _) = derive(&demo_index(true), &texts, &Extents::default());
        // `run` is a reference callable; a local function defined on line 3 inside it is not.
        assert_eq!(
            reference.caller_at(&Site::new("app.py", 2)),
            Some(&Site::new("app.py", 2))
        );
        assert_eq!(
            reference.caller_at(&Site::new("app.py", 3)),
            Some(&Site::new("app.py", 2))
        );
        // Module code is in no body.
        assert_eq!(reference.caller_at(&Site::new("app.py", 13)), None);
    }
    #[test]
    fn consts_holding_arrow_functions_or_function_expressions_are_functions() {
        for yes in [
            " = (a, b) => a + b;",
            " = async (x: A): Promise<B> => {",
            " = <A, B>(\n  self: A,\n  f: (a: A) => B\n): B => f(self)",
            " = x => x",
            " = function (x) {",
            ": (a: number) => number = (a) => a",
            " = <A>(a: A): Array<A> => [a]",
        ] {
            assert!(holds_function(yes), "{yes}");
        }
        for no in [
            " = dual(2, (a, b) => a)",
            " = (a) ? b : c",
            " = 1",
            ": Tag<A> = Tag()",
            " == (x) => x",
            "(x) => x",
            " = lambda x: x",
        ] {
            assert!(!holds_function(no), "{no}");
        }
    }

    #[test]
    fn conditional_redefinitions_are_one_function() {
        const A: &str = "scip-python python demo 1.0 m/a().";
        const B: &str = "scip-python python demo 1.0 m/b().";
        let source = "def a():\n    b()\n\nif x:\n    def b():\n        pass\nelse:\n    def b():\n        pass\n";
        let mut doc = Document::new();
        doc.relative_path = "m.py".into();
        doc.occurrences = vec![
            occurrence(A, [0, 4, 5], true, Some([0, 0, 1, 7])),
            occurrence(B, [1, 4, 5], false, None),
            occurrence(B, [4, 8, 9], true, Some([4, 4, 5, 12])),
            occurrence(B, [7, 8, 9], true, Some([7, 4, 8, 12])),
        ];
        let mut index = Index::new();
        index.documents = vec![doc];
        let texts = |_: &str| Some(source);
        let (reference, _) = derive(&index, &texts, &Extents::default());
        // Both `def b()` bodies are `b` of m.py: the first stands for both.
        assert_eq!(reference.merged, 1);
        assert_eq!(
            edges(&reference),
            vec![("m.py:1".to_owned(), "m.py:5".to_owned())]
        );
        assert_eq!(reference.callables.len(), 3);
        assert_eq!(
            reference.identify(&Site::new("m.py", 8), "b"),
            Some(&Site::new("m.py", 5))
        );
        assert_eq!(
            reference.identify(&Site::new("m.py", 40), "b"),
            Some(&Site::new("m.py", 5))
        );
        assert_eq!(reference.identify(&Site::new("m.py", 40), "c"), None);
    }
    #[test]
    fn overload_signatures_stand_for_their_implementation() {
        const F: &str = "scip-typescript npm demo 1.0 `m.ts`/f().";
        const G: &str = "scip-typescript npm demo 1.0 `m.ts`/g().";
        let source = "function f(a: string): void;\nfunction f(a: number): void;\nfunction f(a: any) {\n  return a;\n}\nfunction g() {\n  f(1);\n}\n";
        let mut doc = Document::new();
        doc.relative_path = "m.ts".into();
        doc.occurrences = vec![
            occurrence(F, [0, 9, 10], true, Some([0, 0, 0, 28])),
            occurrence(F, [1, 9, 10], true, Some([1, 0, 1, 28])),
            occurrence(F, [2, 9, 10], true, Some([2, 0, 4, 1])),
            occurrence(G, [5, 9, 10], true, Some([5, 0, 7, 1])),
            occurrence(F, [6, 2, 3], false, None),
        ];
        let mut index = Index::new();
        index.documents = vec![doc];
        let texts = |_: &str| Some(source);
        let (reference, _) = derive(&index, &texts, &Extents::default());
        assert_eq!(reference.merged, 2);
        assert_eq!(
            edges(&reference),
            vec![("m.ts:6".to_owned(), "m.ts:3".to_owned())]
        );
    }

    #[test]
    fn a_c_call_may_put_a_space_before_its_arguments() {
        const F: &str = "scip-c . corpus 0 `m.c`/f().";
        const G: &str = "scip-c . corpus 0 `m.c`/g().";
        let source = "int f(int a) { return a; }\nint g(void) {\n  return f (1);\n}\n";
        let index_of = |language: &str| {
            let mut doc = Document::new();
            doc.relative_path = "m.c".into();
            doc.language = language.into();
            doc.occurrences = vec![
                occurrence(F, [0, 4, 5], true, Some([0, 0, 0, 26])),
                occurrence(G, [1, 4, 5], true, Some([1, 0, 3, 1])),
                occurrence(F, [2, 9, 10], false, None),
            ];
            let mut index = Index::new();
            index.documents = vec![doc];
            index
        };
        let texts = |_: &str| Some(source);
        let (c, _) = derive(&index_of("c"), &texts, &Extents::default());
        assert_eq!(edges(&c), vec![("m.c:2".to_owned(), "m.c:1".to_owned())]);
        // In other languages a name and a `(` apart stay no call.
        let (other, _) = derive(&index_of("python"), &texts, &Extents::default());
        assert!(edges(&other).is_empty());
        // A Ruby or Scala reference is a call with or without parentheses.
        for language in ["ruby", "scala"] {
            let (unparenthesised, _) = derive(&index_of(language), &texts, &Extents::default());
            assert_eq!(
                edges(&unparenthesised),
                vec![("m.c:2".to_owned(), "m.c:1".to_owned())]
            );
        }
    }
}
