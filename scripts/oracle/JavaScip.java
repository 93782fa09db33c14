// JavaScip writes a SCIP index of the Java sources under a folder from javac's own attribution
// (the Compiler Tree API), as the reference for scripts/accuracy.sh's Java corpora.
//
// Usage (JDK 17, no build step, no library beyond the JDK):
//
//   java scripts/oracle/JavaScip.java -root DIR -output FILE [-classpath CP]
//
// Every .java file under DIR (module-info.java left out) is parsed and attributed as one
// compilation; errors (a dependency missing from the class path) are counted, not fatal, and
// whatever javac could not attribute is left out: no reference is ever guessed.
//
// The index has, per file (paths relative to DIR, UTF-16 columns as javac counts them):
//   - a definition of each class, interface, enum, record and annotation type that has a name
//     and is not local to a method body, and of each method and constructor declared in one
//     (the range of its name; for a method with a body the whole declaration as its enclosing
//     range, none for an abstract or interface method);
//   - a reference at each method invocation (`m(…)`, `a.m(…)`), constructor invocation
//     (`this(…)`, `super(…)`), instance creation (`new T(…)`, `new T(…) { … }` as a call to
//     T's constructor) and method reference (`T::m`, `T::new`) whose target is one of those
//     definitions, as javac resolved it: the declaring method, also for inherited methods and
//     for calls through an interface or a superclass.
//
// Symbols follow scip-java's shape, `semanticdb maven . . com/foo/Outer#Inner#m(+1).`, except
// that a constructor is named by its class (`Bar#Bar().`, as the source and Nexus name it, where
// scip-java writes `<init>`), and that a method written in an enum constant's body (`A { void
// m() {…} }`, an anonymous class) is named as a method of its enum (`E#m().`, as Nexus names it;
// scip-java makes it a local): the bodies of `m` of every constant are one function with `E.m`.
// The range of a `new T<A>(` reference spans `T<A>`, so that it ends right before the `(` the
// scorer looks for. Members of other local and anonymous classes and implicit members (default
// constructors, an enum's values()) have no symbol and are skipped: a call in them counts for
// the method around them, if any.

import com.sun.source.tree.ClassTree;
import com.sun.source.tree.CompilationUnitTree;
import com.sun.source.tree.ExpressionTree;
import com.sun.source.tree.IdentifierTree;
import com.sun.source.tree.MemberReferenceTree;
import com.sun.source.tree.MemberSelectTree;
import com.sun.source.tree.MethodInvocationTree;
import com.sun.source.tree.MethodTree;
import com.sun.source.tree.NewClassTree;
import com.sun.source.tree.ParameterizedTypeTree;
import com.sun.source.tree.Tree;
import com.sun.source.tree.VariableTree;
import com.sun.source.tree.AnnotatedTypeTree;
import com.sun.source.util.JavacTask;
import com.sun.source.util.SourcePositions;
import com.sun.source.util.TreePath;
import com.sun.source.util.TreePathScanner;
import com.sun.source.util.Trees;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import javax.lang.model.element.Element;
import javax.lang.model.element.ElementKind;
import javax.lang.model.element.ExecutableElement;
import javax.lang.model.element.NestingKind;
import javax.lang.model.element.PackageElement;
import javax.lang.model.element.TypeElement;
import javax.lang.model.type.DeclaredType;
import javax.lang.model.type.TypeKind;
import javax.lang.model.type.TypeMirror;
import javax.lang.model.util.ElementFilter;
import javax.lang.model.util.Types;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticListener;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;

public class JavaScip {
    public static void main(String[] args) throws IOException {
        String root = null, output = null, classpath = null;
        for (int i = 0; i + 1 < args.length; i += 2) {
            switch (args[i]) {
                case "-root" -> root = args[i + 1];
                case "-output" -> output = args[i + 1];
                case "-classpath" -> classpath = args[i + 1];
                default -> usage();
            }
        }
        if (root == null || output == null || args.length % 2 != 0) {
            usage();
        }
        Path base = Path.of(root).toAbsolutePath().normalize();
        List<Path> sources;
        try (Stream<Path> walk = Files.walk(base)) {
            sources = walk.filter(p -> p.toString().endsWith(".java"))
                    .filter(p -> !p.getFileName().toString().equals("module-info.java"))
                    .sorted()
                    .collect(Collectors.toList());
        }
        JavaScip oracle = new JavaScip(base);
        byte[] index = oracle.index(sources, classpath);
        Files.write(Path.of(output), index);
        System.err.printf("java_scip: %d files, %d definitions, %d references, %d errors%n",
                oracle.files, oracle.definitions, oracle.references, oracle.errors);
    }

    static void usage() {
        System.err.println("usage: java JavaScip.java -root DIR -output FILE [-classpath CP]");
        System.exit(2);
    }

    final Path base;
    int files, definitions, references, errors;
    Trees trees;
    Types types;
    SourcePositions positions;
    /** The symbol of each method, constructor and type the corpus declares. */
    final Map<Element, String> symbols = new HashMap<>();

    JavaScip(Path base) {
        this.base = base;
    }

    byte[] index(List<Path> sources, String classpath) throws IOException {
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        DiagnosticListener<JavaFileObject> listener = d -> {
            if (d.getKind() == Diagnostic.Kind.ERROR) {
                errors++;
                if (errors <= 10) {
                    System.err.println("java_scip: error: " + d.toString().replace('\n', ' '));
                }
            }
        };
        StandardJavaFileManager manager =
                compiler.getStandardFileManager(listener, null, StandardCharsets.UTF_8);
        List<String> options = new ArrayList<>(List.of("-proc:none", "-nowarn", "-Xlint:none",
                "-encoding", "UTF-8", "-Xmaxerrs", "1000000", "-XDshould-stop.ifError=FLOW"));
        if (classpath != null) {
            options.add("-classpath");
            options.add(classpath);
        }
        JavacTask task = (JavacTask) compiler.getTask(null, manager, listener, options, null,
                manager.getJavaFileObjectsFromPaths(sources));
        List<CompilationUnitTree> units = new ArrayList<>();
        task.parse().forEach(units::add);
        task.analyze();
        trees = Trees.instance(task);
        types = task.getTypes();
        positions = trees.getSourcePositions();
        List<Document> documents = new ArrayList<>();
        for (CompilationUnitTree unit : units) {
            documents.add(new Document(unit));
        }
        for (Document doc : documents) {
            doc.define();
        }
        for (Document doc : documents) {
            doc.refer();
        }
        Pb out = new Pb();
        Pb meta = new Pb();
        Pb tool = new Pb();
        tool.str(1, "java_scip");
        tool.str(2, System.getProperty("java.version"));
        meta.bytes(2, tool.bytes());
        meta.str(3, base.toUri().toString());
        meta.integer(4, 1); // UTF8 text
        out.bytes(1, meta.bytes());
        documents.sort(Comparator.comparing(d -> d.path));
        for (Document doc : documents) {
            out.bytes(2, doc.encode());
            files++;
        }
        return out.bytes();
    }

    /** The symbol prefix of a named, non-local type: `com/foo/Outer#Inner#`, else null. */
    static String typePrefix(TypeElement type) {
        switch (type.getNestingKind()) {
            case TOP_LEVEL -> {
                Element owner = type.getEnclosingElement();
                String pkg = owner instanceof PackageElement p && !p.isUnnamed()
                        ? p.getQualifiedName().toString() : "";
                StringBuilder s = new StringBuilder();
                if (!pkg.isEmpty()) {
                    for (String part : pkg.split("\\.")) {
                        s.append(escape(part)).append('/');
                    }
                }
                return s.append(escape(type.getSimpleName().toString())).append('#').toString();
            }
            case MEMBER -> {
                if (type.getEnclosingElement() instanceof TypeElement outer) {
                    String prefix = typePrefix(outer);
                    return prefix == null ? null
                            : prefix + escape(type.getSimpleName().toString()) + "#";
                }
                return null;
            }
            default -> {
                return null;
            }
        }
    }

    /** A SCIP descriptor name, in backticks unless it is a simple identifier. */
    static String escape(String name) {
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            boolean simple = c == '_' || c == '+' || c == '-' || c == '$'
                    || c < 128 && Character.isLetterOrDigit(c);
            if (!simple) {
                return "`" + name.replace("`", "``") + "`";
            }
        }
        return name;
    }

    static final String SCHEME = "semanticdb maven . . ";

    /** A reference's target: the constructor `new T(…) { … }` runs for an anonymous T. */
    Element target(Element element, NewClassTree creation) {
        if (!(element instanceof ExecutableElement ctor)
                || !(ctor.getEnclosingElement() instanceof TypeElement anonymous)
                || anonymous.getNestingKind() != NestingKind.ANONYMOUS) {
            return element;
        }
        if (creation == null || anonymous.getSuperclass().getKind() != TypeKind.DECLARED) {
            return null;
        }
        Element parent = ((DeclaredType) anonymous.getSuperclass()).asElement();
        List<ExecutableElement> matches = new ArrayList<>();
        for (ExecutableElement c : ElementFilter.constructorsIn(parent.getEnclosedElements())) {
            if (sameParameters(c, ctor)) {
                matches.add(c);
            }
        }
        return matches.size() == 1 ? matches.get(0) : null;
    }

    /** Whether two constructors take the same parameter types (after erasure). */
    boolean sameParameters(ExecutableElement a, ExecutableElement b) {
        if (a.getParameters().size() != b.getParameters().size()) {
            return false;
        }
        for (int i = 0; i < a.getParameters().size(); i++) {
            TypeMirror x = types.erasure(a.getParameters().get(i).asType());
            TypeMirror y = types.erasure(b.getParameters().get(i).asType());
            if (!types.isSameType(x, y)) {
                return false;
            }
        }
        return true;
    }

    /** One SCIP occurrence: a 0-based [line, column, (line,) column] range, maybe an extent. */
    record Occurrence(String symbol, boolean definition, int[] range, int[] enclosing) {}

    /** One source file: its text, line starts, and occurrences. */
    final class Document {
        final CompilationUnitTree unit;
        final String path;
        final String text;
        final int[] lineStarts;
        final List<Occurrence> occurrences = new ArrayList<>();
        final List<String> defined = new ArrayList<>();

        Document(CompilationUnitTree unit) throws IOException {
            this.unit = unit;
            Path file = Path.of(unit.getSourceFile().toUri());
            this.path = base.relativize(file).toString().replace('\\', '/');
            this.text = unit.getSourceFile().getCharContent(true).toString();
            List<Integer> starts = new ArrayList<>(List.of(0));
            for (int i = 0; i < text.length(); i++) {
                if (text.charAt(i) == '\n') {
                    starts.add(i + 1);
                }
            }
            this.lineStarts = starts.stream().mapToInt(Integer::intValue).toArray();
        }

        int[] span(long from, long to) {
            int a = line(from), b = line(to);
            int ca = (int) from - lineStarts[a], cb = (int) to - lineStarts[b];
            return a == b ? new int[] {a, ca, cb} : new int[] {a, ca, b, cb};
        }

        int line(long offset) {
            int lo = 0, hi = lineStarts.length - 1;
            while (lo < hi) {
                int mid = (lo + hi + 1) >>> 1;
                if (lineStarts[mid] <= offset) {
                    lo = mid;
                } else {
                    hi = mid - 1;
                }
            }
            return lo;
        }

        /** The offset of `name` as a whole word at or after `from`, else -1. */
        int word(String name, long from) {
            int at = (int) Math.max(from, 0);
            while ((at = text.indexOf(name, at)) >= 0) {
                boolean before = at > 0 && Character.isJavaIdentifierPart(text.charAt(at - 1));
                int end = at + name.length();
                boolean after = end < text.length()
                        && Character.isJavaIdentifierPart(text.charAt(end));
                if (!before && !after) {
                    return at;
                }
                at = end;
            }
            return -1;
        }

        long end(Tree tree) {
            return tree == null ? -1 : positions.getEndPosition(unit, tree);
        }

        /** Definitions of the named types and their methods and constructors. */
        void define() {
            new TreePathScanner<Void, Void>() {
                @Override
                public Void visitClass(ClassTree tree, Void unused) {
                    Element element = trees.getElement(getCurrentPath());
                    if (element instanceof TypeElement type) {
                        String prefix = typePrefix(type);
                        if (prefix != null) {
                            symbols.put(type, SCHEME + prefix);
                            int at = word(type.getSimpleName().toString(),
                                    Math.max(positions.getStartPosition(unit, tree),
                                            end(tree.getModifiers())));
                            if (at >= 0 && !type.getSimpleName().isEmpty()) {
                                define(SCHEME + prefix, at, type.getSimpleName().length(), null);
                            }
                            methods(tree, type, prefix);
                        } else if (constantBodyOf(getCurrentPath()) instanceof TypeElement owner
                                && typePrefix(owner) != null) {
                            methods(tree, owner, typePrefix(owner));
                        }
                    }
                    return super.visitClass(tree, unused);
                }
            }.scan(unit, null);
        }

        /** The enum whose constant's body the class at `path` is (`A { … }`), else null. */
        Element constantBodyOf(TreePath path) {
            TreePath creation = path.getParentPath();
            TreePath constant = creation == null ? null : creation.getParentPath();
            if (constant == null || !(creation.getLeaf() instanceof NewClassTree)
                    || !(constant.getLeaf() instanceof VariableTree)) {
                return null;
            }
            Element element = trees.getElement(constant);
            return element != null && element.getKind() == ElementKind.ENUM_CONSTANT
                    ? element.getEnclosingElement() : null;
        }

        /** The methods and constructors written in a named type, overloads numbered in order. */
        void methods(ClassTree tree, TypeElement type, String prefix) {
            Map<String, Integer> seen = new HashMap<>();
            for (Tree member : tree.getMembers()) {
                if (!(member instanceof MethodTree method)) {
                    continue;
                }
                TreePath path = TreePath.getPath(unit, method);
                if (!(trees.getElement(path) instanceof ExecutableElement executable)) {
                    continue;
                }
                boolean ctor = executable.getKind() == ElementKind.CONSTRUCTOR;
                String name = ctor ? type.getSimpleName().toString()
                        : method.getName().toString();
                long start = positions.getStartPosition(unit, method);
                if (end(method) <= start || start < 0) {
                    continue; // generated by javac (a record's implicit members)
                }
                int overload = seen.merge(name, 1, Integer::sum) - 1;
                String symbol = SCHEME + prefix + escape(name)
                        + (overload == 0 ? "()." : "(+" + overload + ").");
                symbols.put(executable, symbol);
                long from = Math.max(start, end(method.getModifiers()));
                from = Math.max(from, end(method.getReturnType()));
                for (Tree parameter : method.getTypeParameters()) {
                    from = Math.max(from, end(parameter));
                }
                int at = word(name, from);
                if (at < 0) {
                    continue;
                }
                int[] body = method.getBody() == null ? null : span(start, end(method));
                define(symbol, at, name.length(), body);
            }
        }

        void define(String symbol, int at, int length, int[] body) {
            occurrences.add(new Occurrence(symbol, true, span(at, at + length), body));
            defined.add(symbol);
            definitions++;
        }

        void refer(Element element, long from, long to) {
            String symbol = element == null ? null : symbols.get(element);
            if (symbol == null || from < 0 || to < from) {
                return;
            }
            occurrences.add(new Occurrence(symbol, false, span(from, to), null));
            references++;
        }

        /** Where the simple name of a type tree starts: `T`, `a.T`, `T<A>`, `@X T`. */
        long nameStart(Tree type) {
            if (type instanceof ParameterizedTypeTree p) {
                return nameStart(p.getType());
            }
            if (type instanceof AnnotatedTypeTree a) {
                return nameStart(a.getUnderlyingType());
            }
            if (type instanceof MemberSelectTree m) {
                return end(m) - m.getIdentifier().length();
            }
            return positions.getStartPosition(unit, type);
        }

        /** Whether the source text has `name` at offset `at`. */
        boolean written(String name, long at) {
            return at >= 0 && text.startsWith(name, (int) at);
        }

        /** Where a type name starting at `from` ends, with its type arguments (`T<A, B<C>>`). */
        long typeEnd(long from) {
            int at = (int) Math.max(from, 0);
            while (at < text.length() && Character.isJavaIdentifierPart(text.charAt(at))) {
                at++;
            }
            int next = at;
            while (next < text.length() && Character.isWhitespace(text.charAt(next))) {
                next++;
            }
            if (next >= text.length() || text.charAt(next) != '<') {
                return at;
            }
            for (int depth = 0; next < text.length(); next++) {
                char c = text.charAt(next);
                if (c == '<') {
                    depth++;
                } else if (c == '>' && --depth == 0) {
                    return next + 1;
                }
            }
            return at;
        }

        /** References to the corpus's methods and constructors. */
        void refer() {
            new TreePathScanner<Void, Void>() {
                @Override
                public Void visitMethodInvocation(MethodInvocationTree tree, Void unused) {
                    Element element = trees.getElement(getCurrentPath());
                    ExpressionTree select = tree.getMethodSelect();
                    // javac writes a `super(…)` into the constructors it generates (an
                    // anonymous class's, a default one) at the class's position: not in the text.
                    if (select instanceof IdentifierTree id) {
                        long from = positions.getStartPosition(unit, id);
                        if (written(id.getName().toString(), from)) {
                            refer(element, from, from + id.getName().length());
                        }
                    } else if (select instanceof MemberSelectTree m) {
                        long to = end(m);
                        long from = to - m.getIdentifier().length();
                        if (written(m.getIdentifier().toString(), from)) {
                            refer(element, from, to);
                        }
                    }
                    return super.visitMethodInvocation(tree, unused);
                }

                @Override
                public Void visitNewClass(NewClassTree tree, Void unused) {
                    Element element = target(trees.getElement(getCurrentPath()), tree);
                    long from = nameStart(tree.getIdentifier());
                    refer(element, from, typeEnd(from));
                    return super.visitNewClass(tree, unused);
                }

                @Override
                public Void visitMemberReference(MemberReferenceTree tree, Void unused) {
                    Element element = trees.getElement(getCurrentPath());
                    String name = tree.getName().contentEquals("<init>") ? "new"
                            : tree.getName().toString();
                    long to = end(tree);
                    refer(element, to - name.length(), to);
                    return super.visitMemberReference(tree, unused);
                }
            }.scan(unit, null);
        }

        byte[] encode() {
            Pb doc = new Pb();
            doc.str(1, path);
            occurrences.sort(Comparator.comparingInt((Occurrence o) -> o.range()[0])
                    .thenComparingInt(o -> o.range()[1]));
            for (Occurrence occ : occurrences) {
                Pb o = new Pb();
                o.packed(1, occ.range());
                o.str(2, occ.symbol());
                o.integer(3, occ.definition() ? 1 : 0);
                if (occ.enclosing() != null) {
                    o.packed(7, occ.enclosing());
                }
                doc.bytes(2, o.bytes());
            }
            for (String symbol : defined) {
                Pb info = new Pb();
                info.str(1, symbol);
                doc.bytes(3, info.bytes());
            }
            doc.str(4, "java");
            doc.integer(6, 2); // UTF-16 code units from the line's start, as javac counts
            return doc.bytes();
        }
    }

    /** A minimal protocol buffers writer: varints, length-delimited fields, packed integers. */
    static final class Pb {
        final ByteArrayOutputStream out = new ByteArrayOutputStream();

        void varint(long v) {
            while ((v & ~0x7FL) != 0) {
                out.write((int) (v & 0x7F) | 0x80);
                v >>>= 7;
            }
            out.write((int) v);
        }

        void tag(int field, int wire) {
            varint((long) field << 3 | wire);
        }

        void bytes(int field, byte[] data) {
            tag(field, 2);
            varint(data.length);
            out.writeBytes(data);
        }

        void str(int field, String s) {
            bytes(field, s.getBytes(StandardCharsets.UTF_8));
        }

        /** A non-negative integer field, left out when 0 as proto3 does. */
        void integer(int field, int v) {
            if (v != 0) {
                tag(field, 0);
                varint(v);
            }
        }

        void packed(int field, int[] values) {
            Pb q = new Pb();
            for (int v : values) {
                q.varint(v);
            }
            bytes(field, q.bytes());
        }

        byte[] bytes() {
            return out.toByteArray();
        }
    }
}
