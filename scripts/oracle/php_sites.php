<?php
// Lists, for scripts/oracle/php_scip.py, every function and method a PHP file defines and every
// call whose callee is written as a name, read by nikic/PHP-Parser (Debian's php-parser).
// Usage: php php_sites.php ROOT > sites.jsonl   (one JSON object per file, paths relative to ROOT)
//
// A definition: kind (function|method), name, owner class (methods), the 1-based line and byte
// column of its name, its first and last line. A call: the line and byte column of the called
// name in `f()`, `$o->f()`, `$o?->f()`, `T::f()`; a name computed at run time is no call.

require_once '/usr/share/php/PhpParser/autoload.php';

use PhpParser\Node;
use PhpParser\NodeTraverser;
use PhpParser\NodeVisitorAbstract;
use PhpParser\ParserFactory;

final class Sites extends NodeVisitorAbstract
{
    public array $defs = [];
    public array $calls = [];
    private array $classes = [];

    public function __construct(private string $code)
    {
    }

    private function place(Node $name): array
    {
        $start = $name->getStartFilePos();
        $lineStart = strrpos(substr($this->code, 0, $start), "\n");
        $column = $lineStart === false ? $start : $start - $lineStart - 1;
        return [$name->getStartLine(), $column];
    }

    public function enterNode(Node $node)
    {
        if ($node instanceof Node\Stmt\ClassLike) {
            $this->classes[] = $node->name ? $node->name->toString() : null;
        } elseif ($node instanceof Node\Stmt\Function_ || $node instanceof Node\Stmt\ClassMethod) {
            [$line, $column] = $this->place($node->name);
            $owner = $node instanceof Node\Stmt\ClassMethod ? end($this->classes) : null;
            if (!($node instanceof Node\Stmt\ClassMethod && $owner === null)) {
                $this->defs[] = [
                    'kind' => $owner === null ? 'function' : 'method',
                    'name' => $node->name->toString(),
                    'owner' => $owner,
                    'line' => $line,
                    'column' => $column,
                    'start' => $node->getStartLine(),
                    'end' => $node->getEndLine(),
                ];
            }
        } elseif ($node instanceof Node\Expr\FuncCall && $node->name instanceof Node\Name) {
            $this->call($node->name, true);
        } elseif (($node instanceof Node\Expr\MethodCall || $node instanceof Node\Expr\NullsafeMethodCall
            || $node instanceof Node\Expr\StaticCall) && $node->name instanceof Node\Identifier) {
            $this->call($node->name, false);
        }
        return null;
    }

    private function call(Node $name, bool $function): void
    {
        [$line, $column] = $this->place($name);
        // A qualified function name: the place of its last segment.
        if ($function) {
            $written = substr($this->code, $name->getStartFilePos(), $name->getEndFilePos() - $name->getStartFilePos() + 1);
            $cut = strrpos($written, '\\');
            if ($cut !== false) {
                $column += $cut + 1;
            }
        }
        $this->calls[] = ['line' => $line, 'column' => $column];
    }

    public function leaveNode(Node $node)
    {
        if ($node instanceof Node\Stmt\ClassLike) {
            array_pop($this->classes);
        }
        return null;
    }
}

$root = rtrim($argv[1] ?? '.', '/');
$lexer = new PhpParser\Lexer\Emulative(['usedAttributes' => ['startLine', 'endLine', 'startFilePos', 'endFilePos']]);
$parser = (new ParserFactory())->create(ParserFactory::PREFER_PHP7, $lexer);
$files = new RecursiveIteratorIterator(new RecursiveDirectoryIterator($root, FilesystemIterator::SKIP_DOTS));
$paths = [];
foreach ($files as $file) {
    if ($file->isFile() && str_ends_with($file->getFilename(), '.php')) {
        $paths[] = $file->getPathname();
    }
}
sort($paths);
foreach ($paths as $path) {
    $code = file_get_contents($path);
    try {
        $ast = $parser->parse($code);
    } catch (PhpParser\Error $e) {
        fwrite(STDERR, "php_sites: $path: {$e->getMessage()}\n");
        continue;
    }
    $sites = new Sites($code);
    $traverser = new NodeTraverser();
    $traverser->addVisitor($sites);
    $traverser->traverse($ast ?? []);
    echo json_encode([
        'path' => substr($path, strlen($root) + 1),
        'defs' => $sites->defs,
        'calls' => $sites->calls,
    ]), "\n";
}
