# Lists, for scripts/oracle/ruby_scip.py, every method a Ruby file defines, every class and
# module, and every call written with a name, read by Ruby's own parser (RubyVM::AbstractSyntaxTree).
# Usage: ruby ruby_sites.rb ROOT > sites.jsonl   (one JSON object per file, paths relative to ROOT)
#
# A definition: name, owner (the class or module path, `A::B`, empty at the top level), the
# 1-based line and byte column of its name, its first and last line. A class or module: its path
# and first line. A call: the line and byte column of the called name in `f`, `f(x)`, `o.f`,
# `o&.f`, `C.f`, `C::f(x)`; operators, `super` and attribute writes (`o.f = x`) are no calls.

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

class Sites
  attr_reader :defs, :classes, :calls

  def initialize(code)
    @code = code.b
    @line_starts = [0]
    @code.each_byte.with_index { |b, i| @line_starts << i + 1 if b == 10 }
    @defs = []
    @classes = []
    @calls = []
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

  def walk(node, owner)
    return unless node.is_a?(RubyVM::AbstractSyntaxTree::Node)
    case node.type
    when :CLASS, :MODULE
      path = const_path(node.children[0]) || "?"
      full = node.children[0].type == :COLON3 || owner.empty? ? path : "#{owner}::#{path}"
      @classes << { "name" => full, "line" => node.first_lineno }
      node.children[1..].each { |c| walk(c, full) }
      return
    when :SCLASS
      node.children[1..].each { |c| walk(c, owner) }
      return
    when :DEFN, :DEFS
      name = (node.type == :DEFN ? node.children[0] : node.children[1]).to_s
      at = name_after(offset(node.first_lineno, node.first_column), name, 'def\s+(?:[\w:]+\s*\.\s*)?')
      if at
        @defs << { "name" => name, "owner" => owner, "line" => at[0], "column" => at[1],
                   "start" => node.first_lineno, "end" => node.last_lineno }
      end
    when :CALL, :QCALL
      recv = node.children[0]
      name = node.children[1].to_s
      if recv.is_a?(RubyVM::AbstractSyntaxTree::Node) && name =~ /\A[a-z_A-Z]/
        at = name_after(offset(recv.last_lineno, recv.last_column), name, '\A\s*(?:&\.|\.|::)\s*')
        @calls << { "name" => name, "line" => at[0], "column" => at[1] } if at
      end
    when :FCALL, :VCALL
      name = node.children[0].to_s
      @calls << { "name" => name, "line" => node.first_lineno, "column" => node.first_column } if name =~ /\A[a-z_]/
    end
    node.children.each { |c| walk(c, owner) }
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
  puts JSON.generate({ "path" => rel, "defs" => sites.defs, "classes" => sites.classes, "calls" => sites.calls })
end
