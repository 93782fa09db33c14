# Answers, for scripts/oracle/ruby_scip.py, where TypeProf (bundled with Ruby 3.1) finds the
# method each call site reaches, in one text holding a whole corpus (its language server's
# definition table, without the server's one-second analysis limit).
# Usage: ruby ruby_typeprof.rb TEXT_FILE SITES_JSON SECONDS > answers.json
#   SITES_JSON: [[line (1-based), column (characters)], …]; the answer is, per site, the first
#   lines of the definitions it reaches (a method's `def` line, or a class's line), sorted, or []
#   (a call on a receiver of several classes reaches several).
require "json"
require "typeprof"

text = File.read(ARGV.fetch(0))
sites = JSON.parse(File.read(ARGV.fetch(1)))
config = TypeProf::ConfigData.new(
  rb_files: [["corpus.rb", text]],
  rbs_files: [],
  output: File.open(File::NULL, "w"),
  max_sec: Integer(ARGV.fetch(2)),
  options: { lsp: true, show_errors: false, show_indicator: false, stub_execution: true },
)
_, definitions, = TypeProf.analyze(config)
answers = sites.map do |line, column|
  found = definitions && definitions[TypeProf::CodeLocation.new(line, column)]
  places = found ? found.to_a : []
  places.map { |_, range| range.first.lineno }.uniq.sort
end
puts JSON.generate(answers)
