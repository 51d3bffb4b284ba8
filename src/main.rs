fn main() {
    std::process::exit(herder_audit::run_command_line());
}
