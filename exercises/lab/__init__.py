"""The code lab: learners write each objective in torch, one file per task, and
the file is checked against the lessons' invariants by hypothesis, in a sandboxed
subprocess (the learner's code never runs in this process).

tasks.py     the tasks (torch-free): statements, hints; the files below as learners get them
starters/    each task's file as handed out, solutions/ its reference (real .py files, package data)
workspace.py ``lab init``: the learner's folder, never overwriting their files
child.py     what runs inside the sandbox (stdlib + torch only) and the value codec
sandbox.py   starting the child with time and memory limits, calling the learner's function
isolation.py the OS isolation of that child (Landlock, seccomp) and whether this machine has it
checks/      the properties per task, the search for the smallest counterexample
             (a package: one module per task family, the runner; see its __init__)
stats.py     exact binomial tests for the 15 % and the 80/10/10
record.py    the lab's own table of runs (``lab_runs``) beside the attempts
"""
