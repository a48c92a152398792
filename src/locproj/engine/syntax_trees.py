"""Syntax trees as the code digests see them: a module's code, without what does not run."""

from __future__ import annotations

import ast


def without_docstrings(tree: ast.AST) -> ast.AST:
    """``tree`` (modified in place) without the docstrings of its module, classes and functions: what
    the code digests of locproj's modules and of a user's method file hash."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                node.body = body[1:] or [ast.Pass()]
    return tree
