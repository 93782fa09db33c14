//! The tool catalog: the 17 tool names, their one-line descriptions and their input schemas.
//! Schemas are generated from the typed parameters in `params` and compacted to keep `tools/list` small.

use schemars::{JsonSchema, SchemaGenerator, generate::SchemaSettings};
use serde_json::{Map, Value};

use crate::params::*;

/// One catalog entry as the bridge lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    pub name: &'static str,
    pub description: &'static str,
    pub input_schema: Map<String, Value>,
}

macro_rules! catalog {
    ($($variant:ident $name:literal $params:ty => $description:literal;)*) => {
        /// Every tool Nexus offers.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum ToolName { $($variant),* }

        impl ToolName {
            /// All tools, in catalog order.
            pub const ALL: &'static [ToolName] = &[$(ToolName::$variant),*];

            pub fn as_str(self) -> &'static str {
                match self { $(ToolName::$variant => $name),* }
            }

            pub fn parse(name: &str) -> Option<ToolName> {
                match name { $($name => Some(ToolName::$variant),)* _ => None }
            }

            pub fn description(self) -> &'static str {
                match self { $(ToolName::$variant => $description),* }
            }

            /// The compact JSON schema of this tool's parameters.
            pub fn input_schema(self) -> Map<String, Value> {
                match self { $(ToolName::$variant => schema_of::<$params>()),* }
            }

            pub fn spec(self) -> ToolSpec {
                ToolSpec {
                    name: self.as_str(),
                    description: self.description(),
                    input_schema: self.input_schema(),
                }
            }
        }
    };
}

catalog! {
    Context "context" ContextParams =>
        "Project summary: counts, hotspots, folder outline, graph schema with example Cypher.";
    Search "search" SearchParams =>
        "Ranked symbol and file search by words, meaning or both (mode): id, kind, file:line, score.";
    Cypher "cypher" CypherParams =>
        "Read-only Cypher over the code graph, e.g. MATCH (a)-[:CALLS]->(b {name:'f'}) RETURN a.id.";
    Grep "grep" GrepParams =>
        "Regex search of file contents with glob filter and context lines.";
    Read "read" ReadParams =>
        "A repository file by relative path: line numbers, a line range, level-1 deps.";
    Explore "explore" ExploreParams =>
        "A symbol, cluster or process: its members and connections.";
    Overview "overview" OverviewParams =>
        "Codebase map: clusters and processes (execution flows) with sizes.";
    Impact "impact" ImpactParams =>
        "Blast radius of changing a symbol by depth: 1 WILL BREAK, 2 LIKELY AFFECTED, 3 MAY NEED TESTING.";
    Highlight "highlight" HighlightParams =>
        "Highlight node ids in the user's open graph view.";
    Diff "diff" DiffParams =>
        "Changes since the last index or a git commit (base): symbols, callers, processes, tests.";
    DeepDive "deep_dive" DeepDiveParams =>
        "One symbol in one call: card, source, callers, callees, impact, cluster, processes.";
    ReviewFile "review_file" ReviewFileParams =>
        "A file with its symbols, imports, importers, cluster and processes.";
    TraceFlow "trace_flow" TraceFlowParams =>
        "Shortest call paths between two symbols, or the processes containing one.";
    FindSimilar "find_similar" FindSimilarParams =>
        "Symbols structurally similar to one: community, shared callers/callees, signature.";
    TestImpact "test_impact" TestImpactParams =>
        "For changed files: affected symbols and processes, risk level, tests to run.";
    FindUsages "find_usages" FindUsagesParams =>
        "Where a symbol is used, by file: calls, imports, type uses, bases, reads, passed as a value.";
    Route "route" RouteParams =>
        "Ask in plain words; Nexus plans and runs the right tools in one call: who calls or uses X, what breaks if I change X, explain X, read F, grep /re/, overview, similar to X, trace X to Y, multi-step (\"explain X and what breaks if I change it\"). mode=plan: the plan only. Try this first.";
}

/// The instructions sent at MCP `initialize`.
pub const SERVER_INSTRUCTIONS: &str = "Nexus answers questions about a codebase from a code graph held in the user's browser tab. \
Try `route` first with a plain question. Ids and names from one result can be passed to the next call. \
Results say when they are truncated or a lower bound (low-confidence edges cut). \
Your connection has a session, which makes answers shorter without leaving anything out of reach: \
lists give the best few unless you pass `limit` (search 5, impact and find_usages 10, explore 8, deep_dive 5 callers and callees), with the total and how to get the rest (`offset`, `limit`, verbosity=full); \
symbols are named by qualified name where that is unique (tools accept it like an id), and those already returned only by name (\"seen before\"); \
a file path is given once as `f3=dir/file.py` and then as `f3`, which `read` accepts as a path; \
source lines and `context`/`overview` parts already sent are referred to (verbosity=full, the exact `read` range or a context `focus` repeats them), advice is given once, and `context` recalls your trail.";

/// Generates the schema of `T` and compacts it: inlines definitions, drops nulls, titles and formats,
/// and the top level's `additionalProperties: false` — every parameter struct refuses unknown
/// fields itself (`deny_unknown_fields`, an `InvalidParams` error naming the expected ones), and
/// the 17 copies of that line cost tools/list 480 of its 8 KB.
pub fn schema_of<T: JsonSchema>() -> Map<String, Value> {
    let settings = SchemaSettings::draft2020_12();
    let schema = SchemaGenerator::new(settings).into_root_schema_for::<T>();
    let mut value = schema.to_value();
    let defs = value
        .as_object_mut()
        .and_then(|o| o.remove("$defs"))
        .and_then(|d| d.as_object().cloned())
        .unwrap_or_default();
    compact(&mut value, &defs);
    match value {
        Value::Object(mut map) => {
            if map.get("additionalProperties") == Some(&Value::Bool(false)) {
                map.remove("additionalProperties");
            }
            map
        }
        _ => Map::new(),
    }
}

/// Compacts one schema node. `properties` maps hold property names, not keywords, and are
/// walked value by value so that a parameter called `format` or `title` survives.
fn compact(value: &mut Value, defs: &Map<String, Value>) {
    let Value::Object(map) = value else {
        return;
    };
    if let Some(Value::String(reference)) = map.remove("$ref")
        && let Some(Value::Object(def)) = reference
            .strip_prefix("#/$defs/")
            .and_then(|name| defs.get(name))
    {
        for (key, val) in def {
            // A definition's own description repeats across tools; the field's description stays.
            if key != "description" {
                map.entry(key.clone()).or_insert_with(|| val.clone());
            }
        }
    }
    for key in ["$schema", "title", "format", "$defs"] {
        map.remove(key);
    }
    if map.get("minimum").and_then(Value::as_u64) == Some(0) {
        map.remove("minimum");
    }
    if matches!(map.get("default"), Some(v) if v.as_u64() == Some(0) || v.as_bool() == Some(false))
    {
        map.remove("default");
    }
    if let Some(Value::Array(types)) = map.get("type") {
        let kept: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
        let replacement = match kept.len() {
            1 => kept[0].clone(),
            _ => Value::Array(kept),
        };
        map.insert("type".into(), replacement);
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(options)) = map.remove(key) {
            let mut kept: Vec<Value> = options
                .into_iter()
                .filter(|o| o.get("type") != Some(&Value::from("null")))
                .collect();
            kept.iter_mut().for_each(|option| compact(option, defs));
            if kept.len() == 1 {
                if let Value::Object(only) = &kept[0] {
                    for (k, v) in only {
                        map.entry(k.clone()).or_insert_with(|| v.clone());
                    }
                }
            } else {
                map.insert(key.into(), Value::Array(kept));
            }
        }
    }
    if let Some(Value::Array(values)) = map.get_mut("enum") {
        values.retain(|v| !v.is_null());
        // The values say their type: `"type": "string"` beside them costs tools/list ~400 bytes.
        if values.iter().all(Value::is_string) && map.get("type") == Some(&Value::from("string")) {
            map.remove("type");
        }
    }
    if let Some(Value::Object(properties)) = map.get_mut("properties") {
        properties
            .values_mut()
            .for_each(|property| compact(property, defs));
    }
    for key in ["items", "additionalProperties"] {
        if let Some(child) = map.get_mut(key) {
            compact(child, defs);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tools_list_json() -> String {
        let tools: Vec<Value> = ToolName::ALL
            .iter()
            .map(|t| {
                let spec = t.spec();
                serde_json::json!({
                    "name": spec.name,
                    "description": spec.description,
                    "inputSchema": spec.input_schema,
                })
            })
            .collect();
        serde_json::json!({ "tools": tools }).to_string()
    }

    #[test]
    fn catalog_has_the_seventeen_tools_in_order() {
        let names: Vec<&str> = ToolName::ALL.iter().map(|t| t.as_str()).collect();
        assert_eq!(
            names.join(" "),
            "context search cypher grep read explore overview impact highlight diff deep_dive \
             review_file trace_flow find_similar test_impact find_usages route"
        );
        for tool in ToolName::ALL {
            assert_eq!(ToolName::parse(tool.as_str()), Some(*tool));
        }
        assert_eq!(ToolName::parse("teleport"), None);
    }

    #[test]
    fn descriptions_fit_the_480_token_budget() {
        let chars: usize = ToolName::ALL.iter().map(|t| t.description().len()).sum();
        assert!(chars / 4 <= 480, "descriptions use {} tokens", chars / 4);
        for tool in ToolName::ALL {
            assert!(!tool.description().contains('\n'), "{}", tool.as_str());
        }
    }

    #[test]
    fn tools_list_fits_in_8_kb() {
        let json = tools_list_json();
        assert!(json.len() <= 8 * 1024, "tools/list is {} bytes", json.len());
        assert!(
            json.contains("\"format\":{\"enum\":[\"markdown\",\"json\"]"),
            "{json}"
        );
    }

    #[test]
    fn schemas_are_compact_objects_without_refs_or_nulls() {
        for tool in ToolName::ALL {
            let schema = Value::Object(tool.input_schema());
            let text = schema.to_string();
            assert_eq!(schema["type"], "object", "{}", tool.as_str());
            for banned in [
                "$ref",
                "$defs",
                "null",
                "$schema",
                "\"format\":\"",
                "\"title\":\"",
            ] {
                assert!(
                    !text.contains(banned),
                    "{} has {banned}: {text}",
                    tool.as_str()
                );
            }
        }
    }

    #[test]
    fn required_fields_and_enums_survive_compaction() {
        let schema = Value::Object(ToolName::Impact.input_schema());
        assert_eq!(schema["required"], serde_json::json!(["target"]));
        assert_eq!(
            schema["properties"]["direction"]["enum"],
            serde_json::json!(["upstream", "downstream"])
        );
        assert_eq!(schema["properties"]["max_depth"]["default"], 3);
        assert!(schema.get("additionalProperties").is_none(), "{schema}");
        let grep = Value::Object(ToolName::Grep.input_schema());
        assert_eq!(grep["properties"]["context_lines"]["maximum"], 5);
        let diff = Value::Object(ToolName::Diff.input_schema());
        assert_eq!(diff["properties"]["base"]["type"], "string");
        assert_eq!(diff["properties"]["depth"]["maximum"], 3);
    }
}
