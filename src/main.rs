fn main() {
    std::process::exit(dwarv::cli::main());
}
