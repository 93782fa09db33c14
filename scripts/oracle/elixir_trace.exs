# Compiles the Elixir files under a folder with a compiler tracer and writes, one per line
# (tab-separated), every function and macro the corpus defines and every call the compiler
# resolved: scripts/oracle/elixir_scip.py turns them into a SCIP index.
#
# Usage: elixir elixir_trace.exs ROOT OUTPUT
#   def  FILE MODULE NAME ARITY KIND LINE           (LINE: the first clause's)
#   call FILE LINE COLUMN CALLER_MODULE CALLER_NAME CALLER_ARITY MODULE NAME ARITY
defmodule NexusOracle.Tracer do
  @moduledoc false
  @calls [:remote_function, :remote_macro, :imported_function, :imported_macro]

  def trace({kind, meta, module, name, arity}, env) when kind in @calls do
    record_call(env, meta, module, name, arity)
  end

  def trace({kind, meta, name, arity}, env) when kind in [:local_function, :local_macro] do
    record_call(env, meta, env.module, name, arity)
  end

  def trace({:on_module, _bytecode, _}, env) do
    for {name, arity} <- Module.definitions_in(env.module) do
      case Module.get_definition(env.module, {name, arity}) do
        {:v1, kind, meta, _clauses} ->
          row = ["def", env.file, inspect(env.module), Atom.to_string(name), arity, kind, meta[:line]]
          :ets.insert(:nexus_oracle, {row})

        _ ->
          :ok
      end
    end

    :ok
  end

  def trace(_event, _env), do: :ok

  defp record_call(%{function: {caller, caller_arity}} = env, meta, module, name, arity) do
    if meta[:line] && meta[:column] do
      row = [
        "call",
        env.file,
        meta[:line],
        meta[:column],
        inspect(env.module),
        Atom.to_string(caller),
        caller_arity,
        inspect(module),
        Atom.to_string(name),
        arity
      ]

      :ets.insert(:nexus_oracle, {row})
    end

    :ok
  end

  defp record_call(_env, _meta, _module, _name, _arity), do: :ok
end

[root, output] = System.argv()
:ets.new(:nexus_oracle, [:public, :named_table, :duplicate_bag])
Code.put_compiler_option(:tracers, [NexusOracle.Tracer])
Code.put_compiler_option(:parser_options, columns: true)
Code.put_compiler_option(:ignore_module_conflict, true)
files = Path.wildcard(Path.join(root, "**/*.ex"))
Kernel.ParallelCompiler.compile(files)

lines =
  for {row} <- :ets.tab2list(:nexus_oracle) do
    [Enum.map_join(row, "\t", &to_string/1), "\n"]
  end

File.write!(output, lines)
