# Answers, for scripts/oracle/ruby_scip.py, which method Ruby itself runs for each `Owner#name`
# (an instance method: `A::B#initialize` for `A::B.new`) or `Owner.name` (a class method) asked:
# the corpus is loaded (every file under ROOT, in order, each one's errors skipped) and the
# owner's `instance_method` asked (its singleton class's for `Owner.name`), so included,
# prepended and inherited methods count, and private ones, and those written by `module_eval`.
# `super Owner#name` (or `super Owner.name`) asks which method `super` in that method of a class
# runs: the `super_method` of the class's own method of that name (one a prepended module
# defines is passed over, as Ruby's lookup from the class's own method is); a module's `super`
# depends on the class mixing it in and is not answered.
# Usage: ruby ruby_methods.rb ROOT < queries (one a line) > answers.json
#   answers.json: {"A::B#m": [path relative to ROOT, line of its `def`] when Ruby finds the method
#   in a file under ROOT, [] when it finds it elsewhere; queries it does not find are left out}.
require "json"

root = File.realpath(ARGV.fetch(0))
queries = $stdin.read.split("\n").map(&:strip).reject(&:empty?)
$LOAD_PATH.unshift(root)
$stdout.sync = true
out = $stdout.dup
$stdout.reopen(File::NULL)
Dir.glob("**/*.rb", base: root).sort.each do |rel|
  begin
    require File.join(root, rel)
  rescue ScriptError, StandardError, SystemExit
    next
  end
end
answers = {}
queries.each do |query|
  asked = query.delete_prefix("super ")
  owner, mark, name = asked.rpartition(/[#.]/)
  next if owner.empty? || name.empty?
  begin
    klass = Object.const_get(owner)
    next unless klass.is_a?(Module)
    methods = mark == "." ? klass.singleton_class : klass
    method = methods.instance_method(name.to_sym)
    if asked != query
      next unless klass.is_a?(Class)
      method = method.super_method until method.nil? || method.owner == methods
      method = method&.super_method
      next if method.nil?
    end
    file, line = method.source_location
    file = file && File.expand_path(file)
    answers[query] = file&.start_with?("#{root}/") ? [file.delete_prefix("#{root}/"), line] : []
  rescue ScriptError, StandardError
    next
  end
end
out.puts JSON.generate(answers)
