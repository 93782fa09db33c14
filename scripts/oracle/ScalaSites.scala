// Lists the definitions and call sites of the Scala files under a folder as scalac 2.11's typer
// binds them, for scripts/oracle/scala_scip.py (which writes the SCIP index).
//
// Usage: ScalaSites ROOT FILE... (the compiler's classpath is the JVM's: `java -cp`).
// Prints one tab-separated line per definition and per call:
//   D path name owner line column start end   (a `def`: its name's 1-based line and byte column,
//                                               its extent's 1-based first and last lines)
//   R path line column length path name owner (a call: 0-based line, byte column and length of
//                                               the callee's name as written; the callee's site)
// A definition is a `def` written in the source (not a constructor, an accessor of a `val` or
// `var`, nor a method the compiler adds: case classes' `copy`, `apply`, default-argument getters).
// Its owner is the chain of classes, traits, objects and methods around it, as SCIP descriptors
// (`Outer#Inner#`, `Outer#method().`); a class and its companion object share their owner.
// A call is a reference, after the typer, to such a definition whose name is written at the
// reference's position: calls the compiler inserts (`apply` of `Foo(x)`, implicit conversions,
// implicit arguments) are not listed, nor eta-expanded method values (`xs.map(f)`, `f _`).
import scala.tools.nsc.{Global, Settings}
import scala.tools.nsc.reporters.ConsoleReporter

object ScalaSites {
  def escaped(name: String): String =
    if (name.nonEmpty && name.forall(c => c.isLetterOrDigit || "_$+-".contains(c))) name
    else "`" + name.replace("`", "``") + "`"

  def main(args: Array[String]): Unit = {
    if (args.length < 2) {
      System.err.println("usage: ScalaSites ROOT FILE...")
      sys.exit(2)
    }
    val root = new java.io.File(args(0)).getCanonicalPath + "/"
    val settings = new Settings(message => { System.err.println(message); sys.exit(2) })
    settings.usejavacp.value = true
    settings.Yrangepos.value = true
    settings.stopAfter.value = List("typer")
    settings.nowarn.value = true
    val reporter = new ConsoleReporter(settings)
    val global = new Global(settings, reporter)
    import global._

    val run = new Run
    run.compile(args.toList.drop(1))
    if (reporter.hasErrors)
      System.err.println(s"scalac reported ${reporter.ERROR.count} errors: calls in those expressions are not judged")

    def inRoot(file: String): Option[String] = {
      val path = new java.io.File(file).getCanonicalPath
      if (path.startsWith(root)) Some(path.stripPrefix(root)) else None
    }
    def relative(sym: Symbol): Option[String] =
      if (sym.pos.isDefined) inRoot(sym.pos.source.file.path) else None

    // The owner chain as SCIP descriptors: classes, traits and objects as types, methods as
    // methods; packages are left out (a name is qualified within its file).
    def ownerOf(sym: Symbol): String = {
      val chain = sym.owner.ownerChain.takeWhile(o => !o.hasPackageFlag && o != NoSymbol).reverse
      chain.flatMap { o =>
        if (o.isClass || o.isModuleClass) Some(escaped(o.decodedName.stripSuffix("$")) + "#")
        else if (o.isMethod && !o.isConstructor) Some(escaped(o.decodedName) + "().")
        else None
      }.mkString
    }

    def isDefinition(sym: Symbol): Boolean =
      sym != null && sym != NoSymbol && sym.isMethod && !sym.isConstructor && !sym.isAccessor &&
        !sym.isSynthetic && !sym.isArtifact && !sym.hasFlag(scala.reflect.internal.Flags.DEFAULTPARAM | scala.reflect.internal.Flags.PARAMACCESSOR) &&
        sym.pos.isDefined

    def lineAndColumn(source: scala.reflect.internal.util.SourceFile, offset: Int): (Int, Int) = {
      val line = source.offsetToLine(offset)
      val start = source.lineToOffset(line)
      val prefix = new String(source.content, start, offset - start)
      (line, prefix.getBytes("UTF-8").length)
    }

    val defined = scala.collection.mutable.Set[Symbol]()
    val out = new java.io.PrintWriter(new java.io.OutputStreamWriter(System.out, "UTF-8"))

    // Definitions first: a call may name a method of a file read later.
    for (unit <- run.units) {
      new Traverser {
        override def traverse(tree: Tree): Unit = {
          tree match {
            case d: DefDef if isDefinition(d.symbol) && d.pos.isRange =>
              relative(d.symbol).foreach { path =>
                val (line, column) = lineAndColumn(unit.source, d.pos.point)
                val first = unit.source.offsetToLine(d.pos.start) + 1
                val last = unit.source.offsetToLine(math.max(d.pos.start, d.pos.end - 1)) + 1
                out.println(Seq("D", path, d.symbol.decodedName, ownerOf(d.symbol), line + 1, column,
                  first, last).mkString("\t"))
                defined += d.symbol
              }
            case _ =>
          }
          super.traverse(tree)
        }
      }.traverse(unit.body)
    }

    for (unit <- run.units) {
      val text = unit.source.content
      def written(offset: Int, name: String): Boolean =
        offset >= 0 && offset + name.length <= text.length &&
          (new String(text, offset, name.length) == name ||
            (offset + name.length + 2 <= text.length &&
              new String(text, offset, name.length + 2) == "`" + name + "`"))
      new Traverser {
        // Positions of eta-expansions (`f _`, `xs.map(f)`): method values, not calls.
        override def traverse(tree: Tree): Unit = tree match {
          case Typed(_, Function(Nil, EmptyTree)) => ()
          // An eta-expansion's parameters are synthetic and named as the method's; a placeholder
          // lambda's (`_.f`) are synthetic too but named `x$1`, `x$2` ….
          case Function(params, _) if params.nonEmpty && params.forall(_.symbol.isSynthetic) &&
              !params.exists(_.name.toString.matches("x\\$\\d+")) => ()
          case Block(stats, Function(params, _)) if params.nonEmpty &&
              params.forall(_.name.toString.startsWith("eta$")) => ()
          case _: Select | _: Ident =>
            val sym = tree.symbol
            if (sym != null && defined.contains(sym) && tree.pos.isDefined) {
              val name = sym.decodedName
              val at = tree.pos.point
              val column = if (written(at, name)) Some(at) else None
              for (offset <- column; path <- relative(sym); here <- inRoot(unit.source.file.path)) {
                val (line, byteColumn) = lineAndColumn(unit.source, offset)
                val length = name.getBytes("UTF-8").length
                out.println(Seq("R", here, line, byteColumn, length, path, name,
                  ownerOf(sym)).mkString("\t"))
              }
            }
            super.traverse(tree)
          case _ => super.traverse(tree)
        }
      }.traverse(unit.body)
    }
    out.flush()
  }
}
