//! PHP's own resolution rule: function, method, class and namespace names are compared without
//! regard to case (`Foo::BAR()` calls `bar`), as PHP itself does for ASCII letters.

use super::Resolver;
use crate::lang::Lang;

impl<'a> Resolver<'a> {
    /// Indexes every PHP definition's name and every name a `use` line binds by the name in
    /// lowercase, each spelling once.
    pub(super) fn php_structure(&mut self) {
        for f in self.files.all.iter().filter(|f| f.lang == Lang::Php) {
            let defined = f.defs.iter().map(|d| d.name.as_str());
            let imported = f
                .imports
                .iter()
                .flat_map(|i| i.names.iter().map(|n| n.local()));
            for name in defined.chain(imported) {
                let spellings = self
                    .php_spellings
                    .entry(name.to_ascii_lowercase())
                    .or_default();
                if !spellings.contains(&name) {
                    spellings.push(name);
                }
            }
        }
    }

    /// The other spellings of `name` that PHP definitions or `use` lines of the project have
    /// (`bar` for `BAR`); empty for a name written as every definition of it is.
    pub(super) fn php_other_spellings(&self, name: &str) -> Vec<&'a str> {
        if self.php_spellings.is_empty() {
            return Vec::new();
        }
        self.php_spellings
            .get(&name.to_ascii_lowercase())
            .map(|found| found.iter().copied().filter(|&s| s != name).collect())
            .unwrap_or_default()
    }
}
