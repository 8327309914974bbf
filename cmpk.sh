twin2 () 
{ 
    local ka=() ca=();
    for a in "$@";
    do
        ka+=("${a//NAME/e2}");
        ca+=("${a//NAME/e3}");
    done;
    ./k "${ka[@]}" > k.out 2>&1;
    echo "rc=$?" >> k.out;
    ./c "${ca[@]}" > c.out 2>&1;
    echo "rc=$?" >> c.out;
    sed -i 's/e2/e3/g; s/kubectl /ctl /g' k.out;
    cmp -s k.out c.out && echo "SAME: $*" || { 
        echo "DIFF: $*";
        diff k.out c.out
    }
}
