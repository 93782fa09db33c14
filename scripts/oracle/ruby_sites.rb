# Lists, for scripts/oracle/ruby_scip.py, every method a Ruby file defines, every class and
# module, and every call written with a name, read by Ruby's own parser (RubyVM::AbstractSyntaxTree).
# Usage: ruby ruby_sites.rb ROOT > sites.jsonl   (one JSON object per file, paths relative to ROOT)
#
# A definition: name, owner (the class or module path, `A::B`, empty at the top level), the
# 1-based line and byte column of its name, its first and last line. A class or module: its path
# and first line. A call: the line and byte column of the called name in `f`, `f(x)`, `o.f`,
# `o&.f`, `C.f`, `C::f(x)`; operators, `super` and attribute writes (`o.f = x`) are no calls.
# A call on `self` (no receiver, or `self.f`) inside a method also names the method's owner as
# Ruby looks it up: `A::B#` in an instance method, `A::B.` in a class method (`def self.f`,
# `class << self`). A `super` (with or without arguments) in a method of a class is a "super"
# site: the line and byte column of the keyword and the method as `A::B#name` or `A::B.name`.
#
# Methods made by `attr_reader`/`attr_writer`/`attr_accessor`, `alias_method` and `alias` with
# literal names are definitions too (at the name's place; first and last line those of the
# statement). TypeProf records no definition for them, so the file's text for TypeProf
# ("typeprof", only when it differs) has each such statement written as the `def`s it makes, on
# the statement's first line when nothing but a comment follows it there (`def a; @a; end`, `def a=(v); @a = v; end`, an alias
# `def new(...); old(...); end`), the line count kept; a file whose rewrite does not parse keeps
# its text.

require "json"

def const_path(node)
  return nil unless node.is_a?(RubyVM::AbstractSyntaxTree::Node)
  case node.type
  when :CONST then node.children[0].to_s
  when :COLON3 then node.children[0].to_s
  when :COLON2
    scope = const_path(node.children[0])
    scope ? "#{scope}::#{node.children[1]}" : node.children[1].to_s
  end
end

ATTRIBUTE_MAKERS = %i[attr_reader attr_writer attr_accessor].freeze

# The literal name a symbol or string node holds, else nil.
def literal_name(node)
  return nil unless node.is_a?(RubyVM::AbstractSyntaxTree::Node)
  value = node.children[0]
  case node.type
  when :LIT then value.is_a?(Symbol) ? value.to_s : nil
  when :STR then value.is_a?(String) ? value : nil
  end
end

class Sites
  attr_reader :defs, :classes, :calls, :supers, :edits

  def initialize(code)
    @code = code.b
    @line_starts = [0]
    @code.each_byte.with_index { |b, i| @line_starts << i + 1 if b == 10 }
    @defs = []
    @classes = []
    @calls = []
    @supers = []
    @edits = []
  end

  # The text for TypeProf: every method-making statement replaced by its `def`s.
  def rewritten
    return nil if @edits.empty?
    text = @code.dup
    @edits.sort_by { |from, _, _| -from }.each { |from, to, code| text[from...to] = code }
    RubyVM::AbstractSyntaxTree.parse(text)
    text.force_encoding(Encoding::UTF_8)
  rescue SyntaxError
    nil
  end

  # A method made by a statement (`attr_*`, `alias_method`, `alias`): listed at its name's place.
  def made(name, arg, statement, owner)
    at = name_after(offset(arg.first_lineno, arg.first_column), name, %q{\A:?["']?})
    return unless at
    @defs << { "name" => name, "owner" => owner, "line" => at[0], "column" => at[1],
               "start" => statement.first_lineno, "end" => statement.last_lineno }
  end

  # Records the methods `node` (an `attr_*`/`alias_method` call or an `alias`) makes and the
  # `def`s that stand for it in TypeProf's text.
  def method_maker(node, owner)
    args = node.type == :ALIAS ? node.children : node.children[1]&.children&.compact
    return unless args && !args.empty?
    names = args.map { |a| literal_name(a) }
    return if names.any?(&:nil?) || names.any? { |n| n !~ /\A[A-Za-z_]\w*[?!]?\z/ }
    maker = node.type == :ALIAS ? :alias_method : node.children[0]
    code = []
    if maker == :alias_method
      return unless names.size == 2
      made(names[0], args[0], node, owner)
      code << "def #{names[0]}(...); #{names[1]}(...); end"
    else
      names.zip(args).each do |name, arg|
        if maker != :attr_writer
          made(name, arg, node, owner)
          code << "def #{name}; @#{name}; end"
        end
        if maker != :attr_reader
          made("#{name}=", arg, node, owner)
          code << "def #{name}=(v); @#{name} = v; end"
        end
      end
    end
    lines = node.last_lineno - node.first_lineno
    to = offset(node.last_lineno, node.last_column)
    rest = @code.byteslice(to, (@line_starts[node.last_lineno] || @code.bytesize) - to) || ""
    return unless rest.match?(/\A\s*(#.*)?\s*\z/n)
    @edits << [offset(node.first_lineno, node.first_column), to, code.join("; ") + ("\n" * lines)]
  end

  def offset(line, column)
    @line_starts[line - 1] + column
  end

  def place(at)
    line = @line_starts.rindex { |s| s <= at } || 0
    [line + 1, at - @line_starts[line]]
  end

  # The place of `name` written after `from` (a byte offset), preceded by what `pattern` allows.
  def name_after(from, name, pattern)
    rest = @code.byteslice(from, @code.bytesize - from) || ""
    m = rest.match(/#{pattern}(#{Regexp.escape(name.b)})(?![\w?!=])/n)
    m && place(from + m.begin(1))
  end

  # `singleton`: inside `class << self`; `me`: the owner of the method around, `A#` or `A.`;
  # `method`: that method's name.
  def walk(node, owner, singleton = false, me = nil, method = nil)
    return unless node.is_a?(RubyVM::AbstractSyntaxTree::Node)
    case node.type
    when :CLASS, :MODULE
      path = const_path(node.children[0]) || "?"
      full = node.children[0].type == :COLON3 || owner.empty? ? path : "#{owner}::#{path}"
      @classes << { "name" => full, "line" => node.first_lineno }
      node.children[1..].each { |c| walk(c, full) }
      return
    when :SCLASS
      node.children[1..].each { |c| walk(c, owner, node.children[0]&.type == :SELF) }
      return
    when :DEFN, :DEFS
      name = (node.type == :DEFN ? node.children[0] : node.children[1]).to_s
      at = name_after(offset(node.first_lineno, node.first_column), name, 'def\s+(?:[\w:]+\s*\.\s*)?')
      if at
        @defs << { "name" => name, "owner" => owner, "line" => at[0], "column" => at[1],
                   "start" => node.first_lineno, "end" => node.last_lineno }
      end
      class_method = node.type == :DEFS ? node.children[0]&.type == :SELF : singleton
      me = owner.empty? || (node.type == :DEFS && !class_method) ? nil : "#{owner}#{class_method ? '.' : '#'}"
      method = name
    when :SUPER, :ZSUPER
      if me && method
        @supers << { "line" => node.first_lineno, "column" => node.first_column,
                     "method" => "#{me}#{method}" }
      end
    when :ALIAS
      method_maker(node, owner) unless me
    when :CALL, :QCALL
      recv = node.children[0]
      name = node.children[1].to_s
      if recv.is_a?(RubyVM::AbstractSyntaxTree::Node) && name =~ /\A[a-z_A-Z]/
        at = name_after(offset(recv.last_lineno, recv.last_column), name, '\A\s*(?:&\.|\.|::)\s*')
        call = { "name" => name, "line" => at[0], "column" => at[1] } if at
        call["self"] = me if call && me && recv.type == :SELF
        @calls << call if call
      end
    when :FCALL, :VCALL
      name = node.children[0].to_s
      if name =~ /\A[a-z_]/
        call = { "name" => name, "line" => node.first_lineno, "column" => node.first_column }
        call["self"] = me if me
        @calls << call
      end
      maker = node.children[0]
      method_maker(node, owner) if !me && (ATTRIBUTE_MAKERS.include?(maker) || maker == :alias_method)
    end
    node.children.each { |c| walk(c, owner, singleton, me, method) }
  end
end

root = File.realpath(ARGV.fetch(0))
Dir.glob("**/*.rb", base: root).sort.each do |rel|
  code = File.binread(File.join(root, rel))
  begin
    ast = RubyVM::AbstractSyntaxTree.parse(code)
  rescue SyntaxError
    next
  end
  sites = Sites.new(code)
  sites.walk(ast, "")
  file = { "path" => rel, "defs" => sites.defs, "classes" => sites.classes, "calls" => sites.calls,
           "supers" => sites.supers }
  typeprof = sites.rewritten
  file["typeprof"] = typeprof if typeprof
  puts JSON.generate(file)
end
