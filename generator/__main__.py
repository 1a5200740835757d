from generator.commands.cli import main

main()
