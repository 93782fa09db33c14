# Answers, for scripts/oracle/ruby_scip.py, which `initialize` Ruby itself runs for `C.new` of each
# class named: the corpus is loaded (every file under ROOT, in order, each one's errors skipped)
# and `C.instance_method(:initialize)` asked, so included, prepended and inherited ones count.
# Usage: ruby ruby_initializers.rb ROOT < names (one `A::B` a line) > answers.json
#   answers.json: {"A::B": [path relative to ROOT, line of its `def`], …}, only for those Ruby
#   finds in a file under ROOT.
require "json"

root = File.realpath(ARGV.fetch(0))
names = $stdin.read.split("\n").map(&:strip).reject(&:empty?)
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
names.each do |name|
  begin
    klass = Object.const_get(name)
    next unless klass.is_a?(Class)
    file, line = klass.instance_method(:initialize).source_location
    next if file.nil?
    file = File.realpath(file)
    next unless file.start_with?("#{root}/")
    answers[name] = [file.delete_prefix("#{root}/"), line]
  rescue ScriptError, StandardError
    next
  end
end
out.puts JSON.generate(answers)
