"""The twin as an operated process: SGLang's log format (`logfmt`), the startup log (`startup`), injected faults
(`faults`) and the USR1 state dump (`stacks`). Imports the model, config and content floors."""
