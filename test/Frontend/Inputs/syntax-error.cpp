int main( {
