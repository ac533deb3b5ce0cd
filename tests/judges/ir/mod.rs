mod merge;
