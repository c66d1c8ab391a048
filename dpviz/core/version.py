"""dpviz's version: one constant, read by the package root and by what saved results record."""

VERSION = "0.1.0"
