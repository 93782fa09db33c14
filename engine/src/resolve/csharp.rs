//! C#'s own resolution rules beside Java's: a partial type's parts joined across files, and
//! extension methods (`static R M(this T x)`) found as members of `T` (`x.M()`).

use super::{Resolver, confidence, dotted_callee};
use crate::extract::strip_generics;
use crate::facts::Receiver;
use crate::graph::{NodeKind, Reason};
use crate::lang::Lang;
use rustc_hash::FxHashMap as HashMap;

impl<'a> Resolver<'a> {
    /// Joins the parts of each `partial` type (same namespace, same qualified name) in a ring of
    /// companions, so a member of one part is a member of every part; only the first part
    /// stays a project-wide name. Indexes extension methods by name.
    pub(super) fn csharp_structure(&mut self) {
        let mut parts: HashMap<(&'a str, &'a str), Vec<u32>> = HashMap::default();
        for (fi, f) in self.files.all.iter().enumerate() {
            if f.lang != Lang::CSharp {
                continue;
            }
            for (di, d) in f.defs.iter().enumerate() {
                let node = self.def_node[fi][di];
                if d.kind.is_type() && d.signature.split_whitespace().any(|w| w == "partial") {
                    parts
                        .entry((f.package.as_deref().unwrap_or(""), d.qualified.as_str()))
                        .or_default()
                        .push(node);
                }
                if d.kind == NodeKind::Method && extension_receiver(&d.signature).is_some() {
                    self.extensions
                        .entry(d.name.as_str())
                        .or_default()
                        .push(node);
                }
            }
        }
        for ring in parts.into_values().filter(|r| r.len() > 1) {
            for (i, &node) in ring.iter().enumerate() {
                self.companions.insert(node, ring[(i + 1) % ring.len()]);
            }
            for list in self.globals.values_mut() {
                list.retain(|n| !ring[1..].contains(n));
            }
        }
    }

    /// An extension method `name` for a receiver: one whose `this` parameter's type is the
    /// receiver's project type or one of its bases, or, for a receiver declared with a type
    /// outside the project, one whose `this` type is written alike. `None` unless exactly one
    /// extension method fits.
    pub(super) fn csharp_extension(
        &self,
        fi: usize,
        scope: Option<u32>,
        receiver: &Receiver,
        name: &str,
        depth: u32,
    ) -> Option<(u32, f32, Reason)> {
        let candidates = self.extensions.get(name)?;
        let known = match receiver {
            // A Dart field named bare is `this.field`.
            Receiver::Name(var) if self.files[fi].lang == Lang::Dart => self
                .variable_type(fi, scope, var, depth)
                .or_else(|| self.path_type(fi, scope, &format!("this.{var}"), depth)),
            Receiver::Name(var) => self.variable_type(fi, scope, var, depth),
            Receiver::SelfRef => self.owner_type(fi, scope).map(|t| (t, 1.0)),
            Receiver::Path(path) => self.path_type(fi, scope, path, depth),
            Receiver::Call(callee) => {
                self.call_result_type(fi, scope, &dotted_callee(callee), depth)
            }
            _ => None,
        };
        let written = match receiver {
            // A literal's type (`"text".M()` reads as a receiver named `string`).
            Receiver::Name(var) if PREDEFINED_TYPES.contains(&var.as_str()) => Some(var.clone()),
            Receiver::Name(var) if known.is_none() => self.binding_type(fi, scope, var),
            _ => None,
        };
        let mut hits = candidates.iter().filter_map(|&node| {
            let &(file, def) = self.node_def.get(&node)?;
            let this_type = self.extension_type(file, def)?;
            match (known, self.resolve_type(file, Some(def), &this_type)) {
                (Some((ty, conf)), Some((ext, _))) if self.is_or_derives(ty, ext) => Some((
                    node,
                    conf.min(confidence::RECEIVER_TYPE),
                    Reason::ReceiverType,
                )),
                (None, None) => written
                    .as_deref()
                    .filter(|w| last_segment(w) == last_segment(&this_type))
                    .map(|_| (node, confidence::RECEIVER_TYPE, Reason::ReceiverType)),
                _ => None,
            }
        });
        // Overloads of one class are one method to the caller; two classes are a doubt.
        let hit = hits.next()?;
        let class = |node: u32| {
            self.node_def.get(&node).and_then(|&(file, def)| {
                Some((file, self.files[file].defs.get(def as usize)?.parent))
            })
        };
        hits.all(|other| class(other.0) == class(hit.0))
            .then_some(hit)
    }

    /// The receiver type an extension (a C# `this` parameter, a Kotlin `fun T.f()`, a Dart
    /// `extension E on T`) is declared for, as written.
    fn extension_type(&self, file: usize, def: u32) -> Option<String> {
        let f = &self.files[file];
        let d = f.defs.get(def as usize)?;
        match f.lang {
            Lang::Kotlin => crate::extract::kotlin_extension_receiver(&d.signature, &d.name),
            // A Dart extension's member: the type the extension is on.
            Lang::Dart => d
                .parent
                .and_then(|p| f.defs.get(p as usize))
                .and_then(|e| crate::extract::dart_extension_on(&e.signature)),
            Lang::Scala => crate::extract::scala_extension_receiver(&f.defs, def),
            _ => extension_receiver(&d.signature),
        }
    }

    /// The method a C# call names: a method declared `override` is left out of member lookup
    /// (the language's rule), so a call reaching one names the virtual or abstract method it
    /// overrides, in the nearest base that declares the name without `override` — unless its
    /// class also declares an overload of the name that overrides nothing.
    pub(super) fn csharp_overridden(&self, target: u32) -> u32 {
        let mut current = target;
        for _ in 0..16 {
            let Some(&(file, def)) = self.node_def.get(&current) else {
                break;
            };
            let Some(d) = self.files[file].defs.get(def as usize) else {
                break;
            };
            let overrides =
                |d: &crate::facts::Def| d.signature.split_whitespace().any(|w| w == "override");
            // An overload of the name that overrides nothing may be the one called: the
            // overloads of a class are one method to the caller.
            let plain_sibling = self.files[file]
                .defs
                .iter()
                .any(|o| o.parent == d.parent && o.name == d.name && !overrides(o));
            if !overrides(d) || plain_sibling {
                break;
            }
            let Some(owner) = d.parent.and_then(|p| self.def_node[file].get(p as usize)) else {
                break;
            };
            let mut part = *owner;
            let mut next = None;
            // Every part of a partial type, for the one naming the bases.
            for _ in 0..16 {
                next = self
                    .bases
                    .get(&part)
                    .into_iter()
                    .flatten()
                    .find_map(|&b| self.find_member(b, &d.name))
                    .map(|(m, _)| m);
                match self.companions.get(&part) {
                    Some(&other) if next.is_none() && other != *owner => part = other,
                    _ => break,
                }
            }
            match next {
                Some(m) if m != current => current = m,
                _ => break,
            }
        }
        current
    }

    /// Whether type `ty` is `ancestor` or has it among its bases, transitively.
    pub(super) fn is_or_derives(&self, ty: u32, ancestor: u32) -> bool {
        let mut queue = vec![ty];
        let mut seen = rustc_hash::FxHashSet::default();
        while let Some(t) = queue.pop() {
            if t == ancestor {
                return true;
            }
            if !seen.insert(t) || seen.len() > 64 {
                continue;
            }
            queue.extend(self.bases.get(&t).into_iter().flatten());
            queue.extend(self.companions.get(&t));
        }
        false
    }
}

/// The type of an extension method's `this` parameter, generics left out (`static int
/// Twice(this Money m)` → `Money`); `None` for other methods.
fn extension_receiver(signature: &str) -> Option<String> {
    let params = signature.split_once('(')?.1.trim_start();
    let rest = params.strip_prefix("this ")?.trim_start();
    let end = rest
        .char_indices()
        .scan(0i32, |depth, (i, c)| {
            match c {
                '<' => *depth += 1,
                '>' => *depth -= 1,
                _ => {}
            }
            Some((i, c, *depth))
        })
        .find(|&(_, c, depth)| depth == 0 && (c.is_whitespace() || c == ',' || c == ')'))
        .map_or(rest.len(), |(i, _, _)| i);
    let ty = strip_generics(&rest[..end]);
    let ty = ty.trim_end_matches(['?', '[', ']']);
    (!ty.is_empty()).then(|| ty.to_owned())
}

/// C#'s keyword types: a receiver written as one is a value of that type (a literal's), never a
/// project type.
pub(super) const PREDEFINED_TYPES: &[&str] = &[
    "bool", "byte", "char", "decimal", "double", "float", "int", "long", "object", "sbyte",
    "short", "string", "uint", "ulong", "ushort",
];

fn last_segment(ty: &str) -> &str {
    let ty = ty.rsplit('.').next().unwrap_or(ty);
    ty.split('<').next().unwrap_or(ty)
}

#[cfg(test)]
mod tests {
    use super::extension_receiver;

    #[test]
    fn extension_receivers_are_read_from_signatures() {
        assert_eq!(
            extension_receiver("public static int Twice(this Money m)").as_deref(),
            Some("Money")
        );
        assert_eq!(
            extension_receiver("static T First<T>(this IList<Pair<T, int>> xs, int n)").as_deref(),
            Some("IList")
        );
        assert_eq!(extension_receiver("static int F(int thisValue)"), None);
        assert_eq!(extension_receiver("static int F("), None);
    }
}
