"""Built-in run importers: other tools' result files read into runs rows, one module each."""
