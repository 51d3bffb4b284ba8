fn main() {
    std::process::exit(herder_audit::cli::run());
}
