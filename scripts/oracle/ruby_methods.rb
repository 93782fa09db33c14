# Answers, for scripts/oracle/ruby_scip.py, which method Ruby itself runs for each `Owner#name`
# (an instance method: `A::B#initialize` for `A::B.new`) or `Owner.name` (a class method) asked:
# the corpus is loaded (every file under ROOT, in order, each one's errors skipped) and the
# owner's `instance_method` asked (its singleton class's for `Owner.name`), so included,
# prepended and inherited methods count, and private ones, and those written by `module_eval`.
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
  owner, mark, name = query.rpartition(/[#.]/)
  next if owner.empty? || name.empty?
  begin
    klass = Object.const_get(owner)
    next unless klass.is_a?(Module)
    methods = mark == "." ? klass.singleton_class : klass
    file, line = methods.instance_method(name.to_sym).source_location
    file = file && File.expand_path(file)
    answers[query] = file&.start_with?("#{root}/") ? [file.delete_prefix("#{root}/"), line] : []
  rescue ScriptError, StandardError
    next
  end
end
out.puts JSON.generate(answers)
