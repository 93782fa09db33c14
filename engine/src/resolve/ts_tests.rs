//! TypeScript resolution fixtures: each rule of the TypeScript resolver with the exact CALLS
//! edges it gives (target, reason and confidence).

use std::collections::BTreeSet;

use super::confidence;
use crate::graph::{EdgeKind, Graph};
use crate::ingest::fixture_graph as graph;

/// Asserts the CALLS edges of `g` are exactly `expected`: (from, to, reason, confidence).
fn expect_calls(g: &Graph, expected: &[(&str, &str, &str, f32)]) {
    let actual: BTreeSet<(String, String, &str, u32)> = g
        .edges()
        .iter()
        .filter(|e| e.kind == EdgeKind::Calls)
        .filter_map(|e| {
            Some((
                g.node(e.from)?.stable_id(),
                g.node(e.to)?.stable_id(),
                e.reason.as_str(),
                (e.confidence * 100.0).round() as u32,
            ))
        })
        .collect();
    let expected: BTreeSet<(String, String, &str, u32)> = expected
        .iter()
        .map(|&(a, b, r, c)| (a.to_owned(), b.to_owned(), r, (c * 100.0).round() as u32))
        .collect();
    assert_eq!(
        actual, expected,
        "CALLS (from, to, reason, confidence in %): actual != expected"
    );
}

#[test]
fn methods_of_object_literals_are_not_names_in_scope() {
    let g = graph(&[
        (
            "src/fn.ts",
            "export const pipe = (a: number): number => a\n",
        ),
        (
            "src/proto.ts",
            "import { pipe } from './fn'\n\nexport const Proto = {\n  pipe() { return 1 }\n}\n\nexport function run(x: number) { return pipe(x) }\n\nexport function make() {\n  const o = { pipe() { return 2 } }\n  return pipe(3)\n}\n",
        ),
    ]);
    expect_calls(
        &g,
        &[
            (
                "Function:src/proto.ts:run",
                "Function:src/fn.ts:pipe",
                "import-resolved",
                confidence::IMPORT,
            ),
            (
                "Function:src/proto.ts:make",
                "Function:src/fn.ts:pipe",
                "import-resolved",
                confidence::IMPORT,
            ),
        ],
    );
}

#[test]
fn variables_parameters_and_imported_values_hide_names_and_stop_guesses() {
    // `retry` is a module-level value, `encode` a local variable, `decode` a parameter, `x` and
    // `y` destructured parameters.
    let g = graph(&[
        (
            "src/codec.ts",
            "export const encode = (a: number): number => a\nexport function decode(a: number): number { return a }\nexport function debounce(a: number): number { return a }\nexport function retry(a: number): number { return a }\n",
        ),
        (
            "src/use.ts",
            "import { debounce } from 'lodash'\nimport { decode } from './codec'\n\nexport const retry = makeRetry(3)\n\nexport const encode = (a: number) => {\n  const encode = build(a)\n  return encode(a)\n}\n\nexport function run(decode: (a: number) => number, [x, { y }]: number[]) {\n  debounce(x)\n  retry(y)\n  return decode(1)\n}\n\nexport function other(a: number) {\n  return decode(a)\n}\n",
        ),
    ]);
    expect_calls(
        &g,
        &[
            (
                "Function:src/use.ts:other",
                "Function:src/codec.ts:decode",
                "import-resolved",
                confidence::IMPORT,
            ),
            // Imported from a package: the project's own function is a candidate at most.
            (
                "Function:src/use.ts:run",
                "Function:src/codec.ts:debounce",
                "unique-global-name",
                confidence::AMBIGUOUS_PAIR,
            ),
        ],
    );
}

#[test]
fn receivers_typed_by_a_union_alias_call_the_member_of_each_type() {
    let g = graph(&[
        (
            "src/ast.ts",
            "export class Literal { toJSON(): object { return {} } }\nexport class Union { toJSON(): object { return {} } only(): void {} }\nexport type Ast =\n  | Literal\n  // composite\n  | Union\nexport type Node = Ast | undefined\nexport type Lit = Literal\n",
        ),
        ("src/index.ts", "export * from './ast'\n"),
        (
            "src/print.ts",
            "import type { Node, Lit } from './index'\nimport * as AST from './ast'\n\nexport function print(node: Node) {\n  node.toJSON()\n  node.only()\n}\nexport function one(lit: Lit) { lit.toJSON() }\nexport function all(asts: AST.Ast[]) { asts.forEach((a) => a.toJSON()) }\n",
        ),
    ]);
    let lit = "Method:src/ast.ts:Literal.toJSON";
    let union = "Method:src/ast.ts:Union.toJSON";
    let print = "Function:src/print.ts:print";
    let one = "Function:src/print.ts:one";
    let all = "Function:src/print.ts:all";
    expect_calls(
        &g,
        &[
            (print, lit, "receiver-type", confidence::RECEIVER_TYPE),
            (print, union, "receiver-type", confidence::RECEIVER_TYPE),
            (one, lit, "receiver-type", confidence::RECEIVER_TYPE),
            // An element of a typed collection: capped as a return type.
            (all, lit, "receiver-type", confidence::RETURN_TYPE),
            (all, union, "receiver-type", confidence::RETURN_TYPE),
            // `only` is not a member of every type of the union: no guess by type.
            (
                print,
                "Method:src/ast.ts:Union.only",
                "unique-global-name",
                confidence::UNIQUE_GLOBAL,
            ),
        ],
    );
}

#[test]
fn a_function_behind_a_type_assertion_is_a_function() {
    let g = graph(&[(
        "src/schema.ts",
        "export const declare: { (a: number): number } = function (a: number) { return a } as any\nexport const wrapped = ((a: number) => a) satisfies (a: number) => number\n\nexport function use(a: number) { return declare(wrapped(a)) }\n",
    )]);
    expect_calls(
        &g,
        &[
            (
                "Function:src/schema.ts:use",
                "Function:src/schema.ts:declare",
                "same-file",
                confidence::SAME_FILE,
            ),
            (
                "Function:src/schema.ts:use",
                "Function:src/schema.ts:wrapped",
                "same-file",
                confidence::SAME_FILE,
            ),
        ],
    );
}

#[test]
fn an_imported_name_wins_over_a_function_nested_in_an_anonymous_callback() {
    let g = graph(&[
        ("src/pull.ts", "export const end = (): number => 1\n"),
        (
            "src/stream.ts",
            "import * as pull from './pull'\n\nexport const zip = dual(2, (a: number) => {\n  const pull = (x: number) => x\n  return pull(a)\n})\n\nexport function drain() { return pull.end() }\n",
        ),
    ]);
    expect_calls(
        &g,
        &[(
            "Function:src/stream.ts:drain",
            "Function:src/pull.ts:end",
            "import-resolved",
            confidence::IMPORT,
        )],
    );
}

#[test]
fn class_fields_holding_functions_are_methods() {
    let g = graph(&[(
        "src/view.ts",
        "export class View {\n  static make = (): View => new View()\n  handle = (e: number) => {\n    this.render(e)\n  }\n  render(e: number): void {}\n  click() { this.handle(1) }\n}\n\nexport function open() { View.make().click() }\n",
    )]);
    let view = "Class:src/view.ts:View";
    expect_calls(
        &g,
        &[
            (
                "Method:src/view.ts:View.make",
                view,
                "constructor",
                confidence::SAME_FILE,
            ),
            (
                "Method:src/view.ts:View.handle",
                "Method:src/view.ts:View.render",
                "self-method",
                confidence::SELF_METHOD,
            ),
            (
                "Method:src/view.ts:View.click",
                "Method:src/view.ts:View.handle",
                "self-method",
                confidence::SELF_METHOD,
            ),
            (
                "Function:src/view.ts:open",
                "Method:src/view.ts:View.make",
                "class-member",
                confidence::SAME_FILE,
            ),
            (
                "Function:src/view.ts:open",
                "Method:src/view.ts:View.click",
                "return-type",
                confidence::RETURN_TYPE,
            ),
        ],
    );
}

#[test]
fn an_attribute_holding_a_function_types_what_calling_it_returns() {
    let g = graph(&[(
        "src/lazy.ts",
        "export class Widget { render(): void {} hide(): void {} }\n\nexport class Lazy {\n  private readonly other: () => Widget | undefined\n  constructor(readonly f: () => Widget) {}\n  show() {\n    const w = this.f()\n    w.render()\n    this.other()?.hide()\n  }\n}\n",
    )]);
    expect_calls(
        &g,
        &[
            (
                "Method:src/lazy.ts:Lazy.show",
                "Method:src/lazy.ts:Widget.render",
                "receiver-type",
                confidence::ATTRIBUTE_TYPE,
            ),
            (
                "Method:src/lazy.ts:Lazy.show",
                "Method:src/lazy.ts:Widget.hide",
                "return-type",
                confidence::ATTRIBUTE_TYPE,
            ),
        ],
    );
}

#[test]
fn an_interface_method_is_near_the_caller_only_where_the_interface_is_imported() {
    let g = graph(&[
        (
            "src/types.ts",
            "export interface Subscribable { subscribe(): void }\nexport interface OperatorFunction { (x: number): number }\n",
        ),
        (
            "src/observable.ts",
            "export class Observable { subscribe(): void {} }\n",
        ),
        (
            "src/map.ts",
            "import { OperatorFunction } from './types'\n\nexport function map(source: any): OperatorFunction { source.subscribe(); return (x) => x }\n",
        ),
        (
            "src/connect.ts",
            "import { Subscribable } from './types'\n\nexport function connect(source: any) { source.subscribe() }\n",
        ),
    ]);
    expect_calls(
        &g,
        &[
            // `map.ts` imports another type of `types.ts`: both `subscribe`s stay candidates.
            (
                "Function:src/map.ts:map",
                "Method:src/types.ts:Subscribable.subscribe",
                "ambiguous",
                confidence::AMBIGUOUS_PAIR,
            ),
            (
                "Function:src/map.ts:map",
                "Method:src/observable.ts:Observable.subscribe",
                "ambiguous",
                confidence::AMBIGUOUS_PAIR,
            ),
            // `connect.ts` imports the interface itself.
            (
                "Function:src/connect.ts:connect",
                "Method:src/types.ts:Subscribable.subscribe",
                "imported-candidate",
                confidence::IMPORTED_CANDIDATE,
            ),
        ],
    );
}

#[test]
fn parameters_of_a_callback_argument_have_the_types_the_callee_declares() {
    let g = graph(&[
        (
            "src/observable.ts",
            "import { Subscriber } from './subscriber'\n\nexport class Observable {\n  constructor(subscribe?: (this: Observable, subscriber: Subscriber) => void) {}\n  subscribe(): void {}\n}\n",
        ),
        (
            "src/subscriber.ts",
            "export class Subscriber { next(): void {} }\nexport class Other { next(): void {} subscribe(): void {} }\n",
        ),
        (
            "src/lift.ts",
            "import { Observable } from './observable'\nimport { Subscriber } from './subscriber'\n\nexport function operate(init: ((source: Observable, subscriber: Subscriber) => void) | undefined): void {}\n",
        ),
        (
            "src/map.ts",
            "import { operate } from './lift'\nimport { Observable } from './observable'\n\nexport function map() {\n  operate((source, subscriber) => { source.subscribe(); subscriber.next() })\n}\nexport function of() {\n  return new Observable(function (subscriber) { subscriber.next() })\n}\nexport function one() {\n  return new Observable(subscriber => subscriber.next())\n}\n",
        ),
    ]);
    let sure = |from: &str| -> Vec<(String, &'static str)> {
        g.edges()
            .iter()
            .filter(|e| e.kind == EdgeKind::Calls && e.confidence >= 0.5)
            .filter(|e| g.node(e.from).is_some_and(|n| n.stable_id() == from))
            .filter_map(|e| Some((g.node(e.to)?.stable_id(), e.reason.as_str())))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .collect()
    };
    // The callee's parameter is a function type (in a union here): its parameters type the
    // arrow function's.
    assert_eq!(
        sure("Function:src/map.ts:map"),
        [
            ("Function:src/lift.ts:operate".to_owned(), "import-resolved"),
            (
                "Method:src/observable.ts:Observable.subscribe".to_owned(),
                "receiver-type"
            ),
            (
                "Method:src/subscriber.ts:Subscriber.next".to_owned(),
                "receiver-type"
            ),
        ]
    );
    // Through the constructor, where `this: Observable` is no positional parameter; a function
    // expression and a lone parameter without parentheses alike.
    for from in ["Function:src/map.ts:of", "Function:src/map.ts:one"] {
        assert_eq!(
            sure(from),
            [
                (
                    "Class:src/observable.ts:Observable".to_owned(),
                    "constructor"
                ),
                (
                    "Method:src/subscriber.ts:Subscriber.next".to_owned(),
                    "receiver-type"
                ),
            ],
            "{from}"
        );
    }
}

#[test]
fn a_function_declaring_its_this_calls_through_that_type_only() {
    let g = graph(&[
        (
            "src/annotation.ts",
            "export type Annotation = { extend_(key: string): boolean }\nexport class Action { run_(): void {} }\n",
        ),
        (
            "src/admin.ts",
            "export class Admin { extend_(key: string): boolean { return true } }\n",
        ),
        (
            "src/make.ts",
            "import { Annotation, Action } from './annotation'\n\nexport function make_(this: Annotation, key: string) { return this.extend_(key) }\nexport function act_(this: Action) { this.run_() }\n",
        ),
    ]);
    expect_calls(
        &g,
        &[
            // `Annotation` is an object type the project has no node for: no guess at the one
            // class method named `extend_`.
            (
                "Function:src/make.ts:act_",
                "Method:src/annotation.ts:Action.run_",
                "receiver-type",
                confidence::RECEIVER_TYPE,
            ),
        ],
    );
}

#[test]
fn readonly_arrays_and_arrays_a_getter_returns_hold_their_elements() {
    let g = graph(&[(
        "src/saveable.ts",
        "export class Saveable { save(): void {} }\nexport class Other { save(): void {} }\nexport class Group {\n  get saveables(): readonly Saveable[] { return [] }\n  saveAll() {\n    this.saveables.map(s => s.save())\n  }\n  saveEach(list: readonly Saveable[]) {\n    for (const x of list) { x.save() }\n  }\n}\n",
    )]);
    expect_calls(
        &g,
        &[
            // Through the getter's declared type.
            (
                "Method:src/saveable.ts:Group.saveAll",
                "Method:src/saveable.ts:Saveable.save",
                "receiver-type",
                confidence::RETURN_TYPE,
            ),
            (
                "Method:src/saveable.ts:Group.saveEach",
                "Method:src/saveable.ts:Saveable.save",
                "receiver-type",
                confidence::RETURN_TYPE,
            ),
        ],
    );
}
