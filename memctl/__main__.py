from memctl.cli import main

main()
