// CsIl lists, from a compiled assembly and its .mdb symbols (Mono's mcs -debug), what the C#
// compiler decided: every method with the lines its body spans, and every call, callvirt and
// newobj instruction whose target method the assembly itself defines, with the source lines of
// the statement it belongs to. scripts/oracle/cs_scip.py turns that into a SCIP index.
//
// Built and run by cs_scip.py with Debian's mono-mcs and libmono-cecil-cil (Mono.Cecil 0.9.5
// with its .mdb reader):  mono CsIl.exe ASSEMBLY
//
// Output, tab-separated, one line each:
//   M  TYPE  METHOD  FILE  FIRST_LINE  LAST_LINE   a method with a body (TYPE: nested types
//                                                  joined by '#', generic arity left out)
//   A  TYPE  METHOD                                a method without a body or line information
//   C  FILE  LINE  END_LINE  TYPE  METHOD  OPCODE  a call the compiler bound to TYPE::METHOD
using System;
using System.Collections.Generic;
using Mono.Cecil;
using Mono.Cecil.Cil;

static class CsIl
{
    static string Chain(TypeReference t)
    {
        var parts = new List<string>();
        for (var x = t; x != null; x = x.DeclaringType)
        {
            var n = x.Name;
            int tick = n.IndexOf('`');
            if (tick >= 0) n = n.Substring(0, tick);
            parts.Insert(0, n);
        }
        return string.Join("#", parts.ToArray());
    }

    static int Main(string[] args)
    {
        var rp = new ReaderParameters { ReadSymbols = true };
        var module = ModuleDefinition.ReadModule(args[0], rp);
        foreach (var type in module.GetTypes())
        {
            foreach (var m in type.Methods)
            {
                var key = Chain(type) + "\t" + m.Name;
                if (!m.HasBody)
                {
                    Console.WriteLine("A\t" + key);
                    continue;
                }
                string first = null; int lo = int.MaxValue, hi = 0;
                foreach (var ins in m.Body.Instructions)
                {
                    var sp = ins.SequencePoint;
                    if (sp == null || sp.StartLine == 0xfeefee) continue;
                    if (first == null) first = sp.Document.Url;
                    if (sp.Document.Url != first) continue;
                    lo = Math.Min(lo, sp.StartLine); hi = Math.Max(hi, sp.EndLine);
                }
                // A body without line information (an expression-bodied member mcs gives none)
                // is found in the source like a declaration without a body.
                Console.WriteLine(first != null ? "M\t" + key + "\t" + first + "\t" + lo + "\t" + hi : "A\t" + key);
                SequencePoint at = null;
                foreach (var ins in m.Body.Instructions)
                {
                    if (ins.SequencePoint != null && ins.SequencePoint.StartLine != 0xfeefee) at = ins.SequencePoint;
                    if (at == null) continue;
                    if (ins.OpCode.Code != Code.Call && ins.OpCode.Code != Code.Callvirt && ins.OpCode.Code != Code.Newobj) continue;
                    var target = ins.Operand as MethodReference;
                    if (target == null) continue;
                    MethodDefinition def;
                    try { def = target.Resolve(); } catch { continue; }
                    if (def == null || def.Module != module) continue;
                    Console.WriteLine("C\t" + at.Document.Url + "\t" + at.StartLine + "\t" + at.EndLine + "\t" + Chain(def.DeclaringType) + "\t" + def.Name + "\t" + ins.OpCode.Code);
                }
            }
        }
        return 0;
    }
}
